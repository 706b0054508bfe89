/**
 * The onset detection functions the reference's multi-feature beat tracker (BeatTrackerMultiFeature)
 * tracks beats on: frames of 2048 samples from the first sample (startFromZero), Hann window; every 1024
 * samples the complex-domain spectral difference, the energy flux and the mel-band flux, and every 512
 * samples the information gain (optional). One FFT every 512 samples serves all four (the 1024-hop frames
 * are every other one). Each frame step is a pure function of this frame's spectrum and the previous ones. (The
 * reference's fifth function, beat emphasis, is left out; see docs/descriptors.md.)
 */
import { binIm, binRe, sharedFloat32Fft } from './fft-f32.ts';
import { applyFilterBank, type FilterBank, melBank } from './filterbanks.ts';

export const ODF_FRAME = 2048;
export const ODF_HOP = 1024;
/** Hop of the information-gain function. */
export const INFO_HOP = 512;
/** Frames either side of the target whose spectra the information gain pools, and their weights. */
const INFO_SIDE = 5;
const INFO_WEIGHTS = Array.from({ length: INFO_SIDE }, (_, i) => 1 - (i * 0.9) / INFO_SIDE);
/** Its band: 40 Hz – 5 kHz. */
const INFO_LOW_HZ = 40;
const INFO_HIGH_HZ = 5000;

/**
 * Frames the reference's streaming FrameCutter cuts with startFromZero: one every hop while a full frame
 * is left, then the (zero-padded) frame that reaches the end, which is the last.
 */
export function odfFrameCount(length: number, frameSize = ODF_FRAME, hop = ODF_HOP): number {
  if (length <= 0) return 0;
  return Math.max(0, Math.ceil((length - frameSize) / hop)) + 1;
}

/** Periodic-free Hann window over the whole frame (its scale does not matter: every ODF is normalized). */
export function hannWindow(size: number): Float64Array {
  const w = new Float64Array(size);
  for (let i = 0; i < size; i++) w[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (size - 1));
  return w;
}

/**
 * One spectrum as the complex-domain difference needs it: real and imaginary parts, magnitudes, and the
 * unit phasor of each bin (1 where the magnitude is 0, as atan2(0, 0) = 0 gives).
 */
export interface FrameSpectrum {
  re: Float64Array;
  im: Float64Array;
  mag: Float64Array;
  /** cos and sin of the bin's phase. */
  cos: Float64Array;
  sin: Float64Array;
}

export function emptySpectrum(bins: number): FrameSpectrum {
  const s = {
    re: new Float64Array(bins),
    im: new Float64Array(bins),
    mag: new Float64Array(bins),
    cos: new Float64Array(bins),
    sin: new Float64Array(bins),
  };
  s.cos.fill(1);
  return s;
}

/**
 * Complex-domain spectral difference (Bello et al. 2004, the reference's OnsetDetection "complex"): the
 * distance, summed over bins, between this frame's bin and the bin predicted from the two frames before
 * (the previous magnitude, the phase advanced by the previous phase step). Rotating this frame's bin by
 * minus the predicted phase puts the prediction on the real axis: |m₁ − X·e^{−i(2φ₁−φ₂)}|, computed with
 * phasors (e^{−i(2φ₁−φ₂)} = conj(u₁)²·u₂) rather than angles.
 */
export function complexDifference(cur: FrameSpectrum, prev1: FrameSpectrum, prev2: FrameSpectrum): number {
  let sum = 0;
  const n = cur.re.length;
  for (let k = 0; k < n; k++) {
    const c1 = prev1.cos[k];
    const s1 = -prev1.sin[k];
    // conj(u₁)² · u₂
    const ar = c1 * c1 - s1 * s1;
    const ai = 2 * c1 * s1;
    const rr = ar * prev2.cos[k] - ai * prev2.sin[k];
    const ri = ar * prev2.sin[k] + ai * prev2.cos[k];
    const xr = cur.re[k] * rr - cur.im[k] * ri;
    const xi = cur.re[k] * ri + cur.im[k] * rr;
    const dr = prev1.mag[k] - xr;
    sum += Math.sqrt(dr * dr + xi * xi);
  }
  return sum;
}

/** √(Σ|X|²) / bins: the spectrum's level as the reference's "rms" onset function measures it. */
export function spectrumRms(mag: Float64Array): number {
  let sq = 0;
  for (let k = 0; k < mag.length; k++) sq += mag[k] * mag[k];
  return Math.sqrt(sq) / mag.length;
}

/** Energy flux: the rise of the spectrum's rms since the previous frame, half-wave rectified. */
export function energyFlux(rms: number, previousRms: number): number {
  return Math.max(0, rms - previousRms);
}

/** A mel band in dB as the reference's amp2db gives it: 20·log10, and −200 dB below 1e-10. */
export function bandDb(value: number): number {
  return value < 1e-10 ? -200 : 20 * Math.log10(value);
}

/** Mel-band flux: the summed rises (dB) of the 40 mel bands since the previous frame (after Ellis 2007). */
export function melFlux(bandsDb: Float32Array, previousDb: Float32Array): number {
  let sum = 0;
  for (let b = 0; b < bandsDb.length; b++) {
    const d = bandsDb[b] - previousDb[b];
    if (d > 0) sum += d;
  }
  return sum;
}

/**
 * Frames the reference's standard FrameCutter cuts with startFromZero (the information gain's): one every
 * hop until one reaches the end of the signal.
 */
export function infoFrameCount(length: number): number {
  if (length <= 0) return 0;
  return Math.max(0, Math.ceil((length - ODF_FRAME) / INFO_HOP)) + 1;
}

/**
 * Modified information gain (Hainsworth & Macleod 2003, the reference's OnsetDetectionGlobal "infogain"):
 * `spectra` holds the band's magnitudes of 2·5 + 1 consecutive frames, oldest first. The five before the
 * middle and the five after it are pooled with weights falling off from the middle (1, 0.82 … 0.28); the
 * value is Σ over bins of max(0, log2(after / before)), with an empty "before" bin read as 1 and an empty
 * "after" bin as FLT_EPSILON.
 */
export function informationGain(spectra: readonly Float64Array[]): number {
  const bins = spectra[0].length;
  let sum = 0;
  // Σ log2(ratio) = log2(Π ratio): ratios are multiplied and the logarithm taken when the product grows
  // large, which saves a logarithm per bin (the costly step here).
  let product = 1;
  // The ten pooled spectra and their weights taken out of the arrays once, not per bin (same sums, same
  // order).
  const [w0, w1, w2, w3, w4] = INFO_WEIGHTS;
  const [b4, b3, b2, b1, b0, , a0, a1, a2, a3, a4] = spectra;
  for (let b = 0; b < bins; b++) {
    let before = b0[b] * w0 + b1[b] * w1 + b2[b] * w2 + b3[b] * w3 + b4[b] * w4;
    let after = a0[b] * w0 + a1[b] * w1 + a2[b] * w2 + a3[b] * w3 + a4[b] * w4;
    if (before === 0) before = 1;
    if (after === 0) after = 1.1920929e-7;
    if (after <= before) continue;
    const ratio = after / before;
    if (ratio > 1e100) sum += Math.log2(ratio);
    else {
      product *= ratio;
      if (product > 1e100) {
        sum += Math.log2(product);
        product = 1;
      }
    }
  }
  return sum + Math.log2(product);
}

export interface BeatOdfs {
  complex: Float32Array;
  energy: Float32Array;
  mel: Float32Array;
  /** Frames per second of the three functions above (sampleRate / 1024). */
  rate: number;
  /**
   * The information gain, one value per 512-sample frame (empty unless asked for); like the reference's,
   * value i is that of the frame five frames back (the pooling needs the five after it).
   */
  infoGain: Float32Array;
  /** Its frames per second (sampleRate / 512). */
  infoRate: number;
}

/** The mel bank of the mel-flux function: 40 bands over 0–4 kHz. */
function melFluxBank(sampleRate: number): FilterBank {
  return melBank(40, 0, 4000, sampleRate, ODF_FRAME);
}

/**
 * The onset detection functions of a signal: three every 1024 samples and, with `withInfoGain` (which the
 * beat tracker asks for by default), the information gain every 512, which doubles the transforms.
 */
export function beatOdfs(signal: Float32Array, sampleRate: number, withInfoGain = false): BeatOdfs {
  const frames = odfFrameCount(signal.length);
  const infoFrames = withInfoGain ? infoFrameCount(signal.length) : 0;
  const bins = ODF_FRAME / 2 + 1;
  const fft = sharedFloat32Fft(ODF_FRAME);
  const window = hannWindow(ODF_FRAME);
  const bank = melFluxBank(sampleRate);
  const power = new Float32Array(bins);
  let melPrev = new Float32Array(bank.bands);
  let melCur = new Float32Array(bank.bands);
  // Three spectra in rotation: this frame and the two before (zero spectra before the first frame).
  let cur = emptySpectrum(bins);
  let prev1 = emptySpectrum(bins);
  let prev2 = emptySpectrum(bins);
  const complex = new Float32Array(frames);
  const energy = new Float32Array(frames);
  const mel = new Float32Array(frames);
  let previousRms = 0;
  // The information gain's band and its last 11 spectra (zeros before the first frame), oldest first.
  const infoLow = Math.round((INFO_LOW_HZ * ODF_FRAME) / sampleRate);
  const infoBins = Math.round((INFO_HIGH_HZ * ODF_FRAME) / sampleRate) + 1 - infoLow;
  const infoBuffer = Array.from({ length: 2 * INFO_SIDE + 1 }, () => new Float64Array(infoBins));
  const infoGain = new Float32Array(infoFrames);
  const last = Math.max(infoFrames - 1, 2 * (frames - 1));
  // Without the information gain only the even 512-hop frames (the 1024-hop ones) are transformed.
  for (let j = 0; j <= last; j++) {
    const main = j % 2 === 0 && j / 2 < frames;
    if (!main && j >= infoFrames) continue;
    const start = j * INFO_HOP;
    const avail = Math.min(ODF_FRAME, signal.length - start);
    const input = fft.input();
    for (let i = 0; i < avail; i++) input[i] = signal[start + i] * window[i];
    input.fill(0, Math.max(0, avail));
    const out = fft.forward();
    if (j < infoFrames) {
      const spectrum = infoBuffer.shift() ?? new Float64Array(infoBins);
      for (let b = 0; b < infoBins; b++) {
        const k = b + infoLow;
        const re = binRe(out, k, ODF_FRAME);
        const im = binIm(out, k, ODF_FRAME);
        spectrum[b] = Math.sqrt(re * re + im * im);
      }
      infoBuffer.push(spectrum);
      infoGain[j] = informationGain(infoBuffer);
    }
    if (!main) continue;
    const f = j / 2;
    for (let k = 0; k < bins; k++) {
      const re = binRe(out, k, ODF_FRAME);
      const im = binIm(out, k, ODF_FRAME);
      const p = re * re + im * im;
      const m = Math.sqrt(p);
      const inverse = m > 0 ? 1 / m : 0;
      cur.re[k] = re;
      cur.im[k] = im;
      cur.mag[k] = m;
      cur.cos[k] = m > 0 ? re * inverse : 1;
      cur.sin[k] = im * inverse;
      power[k] = p;
    }
    complex[f] = complexDifference(cur, prev1, prev2);
    const rms = spectrumRms(cur.mag);
    // The reference zeroes the first value of the two flux functions (their "previous frame" is empty).
    energy[f] = f === 0 ? 0 : energyFlux(rms, previousRms);
    previousRms = rms;
    applyFilterBank(bank, power, melCur);
    for (let b = 0; b < bank.bands; b++) melCur[b] = bandDb(melCur[b]);
    mel[f] = f === 0 ? 0 : melFlux(melCur, melPrev);
    [melPrev, melCur] = [melCur, melPrev];
    [prev2, prev1, cur] = [prev1, cur, prev2];
  }
  return { complex, energy, mel, rate: sampleRate / ODF_HOP, infoGain, infoRate: sampleRate / INFO_HOP };
}
