/**
 * Onsets as the reference's OnsetRate finds them (rhythm.onset_times, onset_count, onset_rate): frames of
 * 1024 samples every 512, each centred on its hop (the streaming FrameCutter's default), Hann window;
 * per frame two detection functions, the high-frequency content (HFC "Brossier": Σ k·|X_k|, without its
 * bin-to-Hz factor, which the normalisation removes) and the complex-domain difference; then the
 * reference's Onsets peak picking over the two (see pickOnsetFrames).
 */
import { hannWindow } from './beat-odf.ts';
import { binIm, binRe, sharedFloat32Fft } from './fft-f32.ts';
import { frameCount } from './spectrum.ts';

export const ONSET_FRAME = 1024;
export const ONSET_HOP = 512;

export interface OnsetDetections {
  hfc: Float32Array;
  complex: Float32Array;
}

/**
 * The two detection functions, one value per 512-sample hop. The complex-domain difference is that of
 * beat-odf.ts's complexDifference written as |X − m₁·P|, with P = u₁²·conj(u₂) the unit phasor of the
 * predicted phase 2φ₁ − φ₂ (u the bins' unit phasors, 1 for an empty bin as atan2(0, 0) = 0 gives):
 * rotating both terms by the same phasor keeps the distance, and the prediction for the next frame is
 * updated in the same pass over the bins (zero spectra before the first frame, as the reference).
 */
export function onsetDetections(
  signal: Float32Array,
  frameSize = ONSET_FRAME,
  hop = ONSET_HOP,
): OnsetDetections {
  const frames = frameCount(signal.length, hop, frameSize);
  const bins = frameSize / 2 + 1;
  const fft = sharedFloat32Fft(frameSize);
  const window = hannWindow(frameSize);
  const hfc = new Float32Array(frames);
  const complex = new Float32Array(frames);
  const previousMag = new Float64Array(bins);
  const previousRe = new Float64Array(bins).fill(1);
  const previousIm = new Float64Array(bins);
  const predictedRe = new Float64Array(bins).fill(1);
  const predictedIm = new Float64Array(bins);
  const half = frameSize >> 1;
  for (let f = 0; f < frames; f++) {
    // Frame f is centred on sample f·hop, zeros outside the signal.
    const start = f * hop - half;
    const from = Math.max(0, -start);
    const to = Math.min(frameSize, signal.length - start);
    const input = fft.input();
    input.fill(0, 0, from);
    for (let i = from; i < to; i++) input[i] = signal[start + i] * window[i];
    input.fill(0, Math.max(from, to));
    const out = fft.forward();
    let high = 0;
    let distance = 0;
    for (let k = 0; k < bins; k++) {
      const re = binRe(out, k, frameSize);
      const im = binIm(out, k, frameSize);
      const m = Math.sqrt(re * re + im * im);
      high += k * m;
      const m1 = previousMag[k];
      const pr = predictedRe[k];
      const pi = predictedIm[k];
      const dr = re - m1 * pr;
      const di = im - m1 * pi;
      distance += Math.sqrt(dr * dr + di * di);
      const inverse = m > 0 ? 1 / m : 0;
      const ur = m > 0 ? re * inverse : 1;
      const ui = im * inverse;
      // Phase step since the previous frame, u·conj(u₁), then the next prediction u·step.
      const qr = previousRe[k];
      const qi = previousIm[k];
      const sr = ur * qr + ui * qi;
      const si = ui * qr - ur * qi;
      predictedRe[k] = ur * sr - ui * si;
      predictedIm[k] = ur * si + ui * sr;
      previousRe[k] = ur;
      previousIm[k] = ui;
      previousMag[k] = m;
    }
    hfc[f] = high;
    complex[f] = distance;
  }
  return { hfc, complex };
}

/** The reference's Onsets parameters (its defaults, which OnsetRate keeps). */
export interface OnsetPicking {
  /** Weight of the running mean in the adaptive threshold. */
  alpha: number;
  /** Length (frames) of the moving average and of the threshold's running window. */
  delay: number;
  /** The smoothed sum below this times the summed weights counts as silence. */
  silenceThreshold: number;
}

const REFERENCE_PICKING: OnsetPicking = { alpha: 0.1, delay: 5, silenceThreshold: 0.02 };

/**
 * The reference's Onsets peak picking, as frame indices: each function scaled to a maximum of 1 and the
 * two summed (weights 1); the sum smoothed by a causal moving average over `delay` frames, values under
 * silenceThreshold·Σweights set to 0; a frame is above threshold when it exceeds the median plus alpha
 * times the mean of a running window of the last `delay` smoothed values (itself included, zeros before
 * the start, the first frame never); an onset is the first frame of a run of at least two such frames
 * (a lone frame is dropped, except a run that starts on the last frame).
 */
export function pickOnsetFrames(
  detections: readonly Float32Array[],
  picking: OnsetPicking = REFERENCE_PICKING,
): number[] {
  const n = detections[0]?.length ?? 0;
  const { alpha, delay, silenceThreshold } = picking;
  const sum = new Float64Array(n);
  for (const d of detections) {
    let max = Number.NEGATIVE_INFINITY;
    for (let j = 0; j < n; j++) if (d[j] > max) max = d[j];
    for (let j = 0; j < n; j++) sum[j] += max !== 0 ? d[j] / max : d[j];
  }
  const smooth = new Float64Array(n);
  let running = 0;
  for (let j = 0; j < n; j++) {
    running += sum[j];
    if (j >= delay) running -= sum[j - delay];
    smooth[j] = running / delay;
    if (smooth[j] < silenceThreshold * detections.length) smooth[j] = 0;
  }
  const above = new Uint8Array(n);
  const ring = new Float64Array(delay);
  const sorted = new Float64Array(delay);
  // The reference writes frame i at slot (i mod delay) after frame 1 went to slot 0: the window holds the
  // last `delay` values once it has filled, zeros before.
  let slot = 0;
  for (let i = 1; i < n; i++) {
    ring[slot] = smooth[i];
    slot = (i + 1) % delay;
    sorted.set(ring);
    sorted.sort();
    const median = delay % 2 === 1 ? sorted[delay >> 1] : (sorted[delay / 2 - 1] + sorted[delay / 2]) / 2;
    let mean = 0;
    for (let k = 0; k < delay; k++) mean += ring[k];
    mean /= delay;
    above[i] = smooth[i] > median + alpha * mean ? 1 : 0;
  }
  const onsets: number[] = [];
  for (let i = 0; i < n; i++) {
    if (!above[i] || (i > 0 && above[i - 1])) continue;
    if (i !== n - 1 && !above[i + 1]) continue;
    onsets.push(i);
  }
  return onsets;
}

export interface OnsetRate {
  /** Onset times in seconds (frame index × hop / sample rate). */
  times: number[];
  /** Onsets per second of the framed signal (frames × hop samples long, as the reference counts it). */
  rate: number;
}

/** Onset times and rate of a mono signal, as the reference's OnsetRate. */
export function onsetRate(signal: Float32Array, sampleRate: number): OnsetRate {
  const { hfc, complex } = onsetDetections(signal);
  if (hfc.length === 0) return { times: [], rate: 0 };
  const frames = pickOnsetFrames([hfc, complex]);
  return {
    times: frames.map((f) => (f * ONSET_HOP) / sampleRate),
    rate: frames.length / ((hfc.length * ONSET_HOP) / sampleRate),
  };
}
