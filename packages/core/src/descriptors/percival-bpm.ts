/**
 * rhythm.bpm_loop as the reference extractor computes it: Essentia's PercivalBpmEstimator (after
 * Percival & Tzanetakis 2014) on the whole signal — an onset strength signal (OSS), one tempo lag per
 * 2048-value window of it, the lags' Gaussian histogram and the authors' octave classifier.
 *
 * One step differs from the published method, as the reference's differs: each window's lag is its
 * highest autocorrelation peak. The method then scores its ten candidate peaks with pulse trains on the
 * OSS; the native reference's values are those of the highest peak on all 40 reference recordings (39
 * to the last digit, see percival-bpm.test.ts), while essentia.js's build of the same source, which does
 * apply the pulse trains, differs from them on 35.
 */
import { type Float32RealFft, sharedFloat32Fft } from './fft-f32.ts';

/** Spectral frames of the onset strength: 1024 samples, Hamming, every 128 samples from sample 0. */
export const PERCIVAL_FRAME = 1024;
export const PERCIVAL_HOP = 128;
/** Windows of the OSS that lags are read from: 2048 values every 128. */
export const OSS_WINDOW = 2048;
export const OSS_HOP = 128;
/** The reference's tempo range (its defaults). */
export const PERCIVAL_MIN_BPM = 50;
export const PERCIVAL_MAX_BPM = 210;
/** Candidate lags per window: the largest peaks of the enhanced autocorrelation. */
const MAX_CANDIDATES = 10;
/** Length of the lag histogram: lags 0 … 413 (the longest lag of 50 BPM at 344.5 OSS values/s). */
const HISTOGRAM_LAGS = 414;
/** Standard deviation (lags) of the Gaussian each window's lag adds to the histogram. */
const GAUSSIAN_SD = 10;
const GAUSSIAN_SIZE = 2000;

/** The reference's OSS low-pass: Percival's 15-tap FIR (firwin(15, 7 Hz) at 344.5 values/s). */
const LOW_PASS = Float32Array.of(
  0.00933978,
  0.01521148,
  0.03163891,
  0.05607187,
  0.08390299,
  0.10948195,
  0.12742038,
  0.13386527,
  0.12742038,
  0.10948195,
  0.08390299,
  0.05607187,
  0.03163891,
  0.01521148,
  0.00933978,
);

/**
 * The octave classifier as the authors trained it: feature ranges for the min–max scaling and three
 * linear SVMs (weights of the three features, then the bias).
 */
const FEATURE_MIN = [0.0321812, 1.68126e-83, 50.1745];
const FEATURE_MAX = [0.863237, 0.449184, 208.807];
const SVM_HALF_OR_SAME = [-1.9551, 0.4348, -4.6442, 3.2896];
const SVM_HALF_OR_DOUBLE = [-3.0408, 2.7591, -6.5367, 3.081];
const SVM_SAME_OR_DOUBLE = [-3.4624, 3.4397, -9.4897, 1.6297];

/** Essentia's Hamming window: 0.53836 − 0.46164·cos(2πi/(N − 1)), not normalized. */
function hamming(size: number): Float32Array {
  const w = new Float32Array(size);
  for (let i = 0; i < size; i++) w[i] = 0.53836 - 0.46164 * Math.cos((2 * Math.PI * i) / (size - 1));
  return w;
}

/**
 * Percival's onset strength before its low-pass, one value per 1024-sample frame that fits in the signal
 * (frames start every 128 samples from sample 0; a shorter signal has none): the half-rectified L1 flux,
 * against the previous frame (zeros before the first), of log(1 + 1000·|X_k|/1024) over the 513 bins of
 * the Hamming-windowed frame's spectrum.
 *
 * With a = 1 + 1000·|X|/1024 now and b before, the sum of the rises of log a is the logarithm of
 * Π max(a, b) / Π b: the products are kept over runs of 64 bins (a factor is below 600, so even the
 * quotient's four products of 32 stay far from overflow), a few logarithms per frame instead of one per
 * bin, and no branch.
 * `loadFloat32Fft()` must have finished.
 */
export function percivalFlux(signal: Float32Array, fft = sharedFloat32Fft(PERCIVAL_FRAME)): Float32Array {
  const size = PERCIVAL_FRAME;
  const frames = signal.length >= size ? Math.floor((signal.length - size) / PERCIVAL_HOP) + 1 : 0;
  const flux = new Float32Array(frames);
  // The window's float32 values, held as doubles (one conversion less per sample).
  const window = Float64Array.from(hamming(size));
  const last = size / 2;
  const scale = 1000 / size;
  // 1 + 1000·|X|/1024 of the previous frame: 1 (the log's 0) before the first.
  const previous = new Float64Array(last + 1).fill(1);
  for (let f = 0; f < frames; f++) {
    const input = fft.input();
    const start = f * PERCIVAL_HOP;
    // Eight samples a step: V8 does not unroll, and this copy costs as much as the transform.
    for (let i = 0; i < size; i += 8) {
      const at = start + i;
      input[i] = signal[at] * window[i];
      input[i + 1] = signal[at + 1] * window[i + 1];
      input[i + 2] = signal[at + 2] * window[i + 2];
      input[i + 3] = signal[at + 3] * window[i + 3];
      input[i + 4] = signal[at + 4] * window[i + 4];
      input[i + 5] = signal[at + 5] * window[i + 5];
      input[i + 6] = signal[at + 6] * window[i + 6];
      input[i + 7] = signal[at + 7] * window[i + 7];
    }
    const out = fft.forward();
    // DC and Nyquist come first in the transform's layout, both real; bin 1 is the odd one out of the
    // pairs below.
    let sum = 0;
    const dc = 1 + Math.abs(out[0]) * scale;
    const nyquist = 1 + Math.abs(out[1]) * scale;
    const first = 1 + Math.sqrt(out[2] * out[2] + out[3] * out[3]) * scale;
    let rises = Math.max(dc, previous[0]) * Math.max(nyquist, previous[last]) * Math.max(first, previous[1]);
    let before = previous[0] * previous[last] * previous[1];
    previous[0] = dc;
    previous[last] = nyquist;
    previous[1] = first;
    // Two bins a step, each with its own products: two multiplication chains in flight, not one.
    let rises2 = 1;
    let before2 = 1;
    for (let k = 2; k < last; k += 2) {
      const re = out[2 * k];
      const im = out[2 * k + 1];
      const re2 = out[2 * k + 2];
      const im2 = out[2 * k + 3];
      const a = 1 + Math.sqrt(re * re + im * im) * scale;
      const a2 = 1 + Math.sqrt(re2 * re2 + im2 * im2) * scale;
      const b = previous[k];
      const b2 = previous[k + 1];
      previous[k] = a;
      previous[k + 1] = a2;
      rises *= Math.max(a, b);
      before *= b;
      rises2 *= Math.max(a2, b2);
      before2 *= b2;
      if ((k & 62) === 0) {
        sum += Math.log((rises * rises2) / (before * before2));
        rises = 1;
        before = 1;
        rises2 = 1;
        before2 = 1;
      }
    }
    flux[f] = sum + Math.log((rises * rises2) / (before * before2));
  }
  return flux;
}

/** The OSS: the flux through the reference's FIR low-pass (zero state before the first value). */
export function percivalLowPass(flux: Float32Array): Float32Array {
  const oss = new Float32Array(flux.length);
  const taps = LOW_PASS.length;
  for (let n = 0; n < flux.length; n++) {
    let y = 0;
    for (let k = 0; k < taps && k <= n; k++) y += LOW_PASS[k] * flux[n - k];
    oss[n] = y;
  }
  return oss;
}

/**
 * The candidate lag range, in OSS values: ⌊344.53·60/maxBpm⌋ … ⌊344.53·60/minBpm⌋ (98 … 413 for the
 * reference's 50–210 BPM at 44.1 kHz).
 */
export function lagRange(
  sampleRate: number,
  minBpm = PERCIVAL_MIN_BPM,
  maxBpm = PERCIVAL_MAX_BPM,
): { min: number; max: number } {
  const ossRate = Math.fround(sampleRate / PERCIVAL_HOP);
  return { min: Math.trunc((ossRate * 60) / maxBpm), max: Math.trunc((ossRate * 60) / minBpm) };
}

/** Essentia's parabolic peak refinement through three values: [position offset, value]. */
function refine(a: number, b: number, c: number): [number, number] {
  const delta = (0.5 * (a - c)) / (a - 2 * b + c);
  return [delta, b - 0.25 * (a - c) * delta];
}

/**
 * Essentia's PeakDetection as the estimator configures it on one enhanced autocorrelation: local maxima
 * from index `min` on (the first index itself when the values fall from it), parabola-refined (a plateau
 * gives its middle), the search ending at the first peak refined past `max`; the ten largest, largest
 * first (the earlier of equal values first). Positions are indices.
 */
export function autocorrelationPeaks(array: Float32Array, min: number, max: number): number[] {
  const size = array.length;
  const peaks: { position: number; value: number }[] = [];
  let i = Math.max(0, min);
  if (i + 1 < size && array[i] > array[i + 1]) peaks.push({ position: i, value: array[i] });
  while (true) {
    while (i + 1 < size - 1 && array[i] >= array[i + 1]) i++;
    while (i + 1 < size - 1 && array[i] < array[i + 1]) i++;
    let j = i;
    while (j + 1 < size - 1 && array[j] === array[j + 1]) j++;
    if (j + 1 < size - 1 && array[j + 1] < array[j]) {
      let position = (i + j) * 0.5;
      let value = array[i];
      if (j === i) {
        const [delta, refined] = refine(array[j - 1], array[j], array[j + 1]);
        position = j + delta;
        value = refined;
      }
      if (position > max) break;
      peaks.push({ position, value });
    }
    i = j;
    if (i + 1 >= size - 1) {
      // The reference's last look, at the value before the end (it checks no upper bound there).
      if (i === size - 2 && array[i - 1] < array[i] && array[i + 1] < array[i]) {
        const [delta, value] = refine(array[i - 1], array[i], array[i + 1]);
        peaks.push({ position: i + delta, value });
      }
      break;
    }
  }
  // Array.prototype.sort is stable: equal values keep their order by position.
  peaks.sort((p, q) => q.value - p.value);
  return peaks.slice(0, MAX_CANDIDATES).map((p) => p.position);
}

/**
 * The generalized autocorrelation of OSS windows (Tolonen & Karjalainen; Essentia's AutoCorrelation with
 * `generalized`, compression 0.5): the inverse transform of |X|^0.5 of the window zero-padded to twice
 * its length, then PercivalEnhanceHarmonics: r(i) += r(2i) + r(4i) below a quarter of the length
 * (r(0) tripled). Its scale (the reference's differs) does not move the peaks.
 */
export class EnhancedAutocorrelation {
  private readonly fft: Float32RealFft;
  constructor(readonly size = OSS_WINDOW) {
    this.fft = sharedFloat32Fft(size * 2);
  }

  compute(window: Float32Array, out: Float32Array): void {
    const input = this.fft.input();
    input.set(window);
    input.fill(0, window.length);
    const spectrum = this.fft.forward();
    // forward()'s answer and input() are different buffers of the module: DC and Nyquist first, then
    // (re, im) pairs; the compressed magnitude is real.
    const compressed = this.fft.input();
    compressed[0] = Math.sqrt(Math.abs(spectrum[0]));
    compressed[1] = Math.sqrt(Math.abs(spectrum[1]));
    for (let k = 2; k < spectrum.length; k += 2) {
      const re = spectrum[k];
      const im = spectrum[k + 1];
      compressed[k] = Math.sqrt(Math.sqrt(re * re + im * im));
      compressed[k + 1] = 0;
    }
    out.set(this.fft.inverse().subarray(0, this.size));
    const quarter = this.size >> 2;
    for (let i = 0; i < quarter; i++) out[i] += out[2 * i] + out[4 * i];
  }
}

/**
 * How many OSS windows the reference cuts from `length` values: from 0 every 128, zero-padded, the last
 * being the first to reach the end (one for a short OSS); none without values.
 */
export function ossWindowCount(length: number): number {
  if (length === 0) return 0;
  return Math.max(0, Math.ceil((length - OSS_WINDOW) / OSS_HOP)) + 1;
}

/**
 * Each OSS window's candidate lags (`autocorrelationPeaks` of its enhanced autocorrelation), largest
 * first: an empty list where a window has no peak in range.
 */
export function ossCandidates(
  oss: Float32Array,
  sampleRate: number,
  minBpm = PERCIVAL_MIN_BPM,
  maxBpm = PERCIVAL_MAX_BPM,
): number[][] {
  const { min, max } = lagRange(sampleRate, minBpm, maxBpm);
  const autocorrelation = new EnhancedAutocorrelation();
  const window = new Float32Array(OSS_WINDOW);
  const enhanced = new Float32Array(OSS_WINDOW);
  const candidates: number[][] = [];
  const count = ossWindowCount(oss.length);
  for (let w = 0; w < count; w++) {
    const start = w * OSS_HOP;
    window.fill(0);
    window.set(oss.subarray(start, Math.min(oss.length, start + OSS_WINDOW)));
    autocorrelation.compute(window, enhanced);
    candidates.push(autocorrelationPeaks(enhanced, min, max));
  }
  return candidates;
}

/**
 * Step 3 and the octave decision: a Gaussian (σ = 10 lags) per valid lag (> −1) summed over lags
 * 0 … 413 (float32, as the reference sums); its highest lag L (the first on a tie) gives
 * 60·(sampleRate/128)/L BPM, which the authors' linear SVMs keep, halve or double from three features
 * (the histogram's share up to L − 10, its share within ±10 of L/2, the BPM). 0 without a valid lag.
 */
export function tempoFromLags(lags: readonly number[], sampleRate: number): number {
  const valid = lags.filter((lag) => lag > -1);
  if (valid.length === 0) return 0;
  const gaussian = new Float32Array(GAUSSIAN_SIZE);
  const norm = 1 / (GAUSSIAN_SD * Math.sqrt(2 * Math.PI));
  const centre = GAUSSIAN_SIZE / 2;
  for (let i = 0; i < GAUSSIAN_SIZE; i++)
    gaussian[i] = norm * Math.exp((i - centre) ** 2 / (-2 * GAUSSIAN_SD ** 2));
  const histogram = new Float32Array(HISTOGRAM_LAGS);
  for (const lag of valid)
    for (let j = 0; j < HISTOGRAM_LAGS; j++) histogram[j] += gaussian[centre - lag + j];
  let selected = 0;
  for (let j = 1; j < HISTOGRAM_LAGS; j++) if (histogram[j] > histogram[selected]) selected = j;
  const bpm = (Math.fround(sampleRate / PERCIVAL_HOP) * 60) / selected;
  const energy = (low: number, high: number): number => {
    let sum = 0;
    const to = Math.min(HISTOGRAM_LAGS - 1, Math.round(high));
    for (let j = Math.max(0, Math.round(low)); j <= to; j++) sum += histogram[j];
    return sum;
  };
  const total = energy(0, HISTOGRAM_LAGS - 1);
  const raw = [
    energy(0, selected - 10) / total,
    energy(0.5 * selected - 10, 0.5 * selected + 10) / total,
    bpm,
  ];
  const f = raw.map((x, i) => (x - FEATURE_MIN[i]) / (FEATURE_MAX[i] - FEATURE_MIN[i]));
  const svm = (w: number[]) => w[3] + f[0] * w[0] + f[1] * w[1] + f[2] * w[2];
  const halfOrSame = svm(SVM_HALF_OR_SAME);
  const halfOrDouble = svm(SVM_HALF_OR_DOUBLE);
  let multiplier = 1;
  if (halfOrDouble > 0 && svm(SVM_SAME_OR_DOUBLE) > 0) multiplier = 2;
  if (halfOrSame <= 0 && halfOrDouble <= 0) multiplier = 0.5;
  return multiplier * bpm;
}

/**
 * rhythm.bpm_loop: the reference's PercivalBpmEstimator on the whole signal, each window's lag its
 * highest candidate (see the top of this file); 0 when no window has one (a signal under 1024 samples,
 * or silence). `loadFloat32Fft()` must have finished.
 */
export function percivalBpm(signal: Float32Array, sampleRate: number): number {
  const oss = percivalLowPass(percivalFlux(signal));
  const lags = ossCandidates(oss, sampleRate).map((c) => (c.length > 0 ? Math.round(c[0]) : -1));
  return tempoFromLags(lags, sampleRate);
}
