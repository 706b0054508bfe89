import FFT from 'fft.js';
import { EvenRealTransform } from './even-transform.ts';

/**
 * Blackman-Harris 62 dB window (the window Essentia's Freesound extractor uses), scaled so its area is 2
 * like Essentia's normalized windows: a full-scale sine then has a spectral peak near 1.
 */
export function blackmanHarris62(size: number): Float32Array {
  const w = new Float32Array(size);
  const a0 = 0.44959;
  const a1 = 0.49364;
  const a2 = 0.05677;
  let sum = 0;
  for (let i = 0; i < size; i++) {
    const t = (2 * Math.PI * i) / (size - 1);
    w[i] = a0 - a1 * Math.cos(t) + a2 * Math.cos(2 * t);
    sum += w[i];
  }
  for (let i = 0; i < size; i++) w[i] *= 2 / sum;
  return w;
}

/**
 * Copies the frame centred on `centre` (zero outside the signal) into `out`. Centred frames follow
 * Essentia's FrameCutter (startFromZero = false): frame i is centred on sample i·hop.
 */
export function cutFrame(signal: Float32Array, centre: number, out: Float32Array): void {
  const size = out.length;
  const start = centre - (size >> 1);
  if (start >= 0 && start + size <= signal.length) {
    out.set(signal.subarray(start, start + size));
    return;
  }
  out.fill(0);
  const from = Math.max(0, start);
  const to = Math.min(signal.length, start + size);
  if (to > from) out.set(signal.subarray(from, to), from - start);
}

/**
 * Frames Essentia's FrameCutter cuts (startFromZero = false, every frame kept): one for every start
 * i·hop − ⌊(frameSize + 1)/2⌋ still inside the signal, so the last frames reach past its end (half a
 * frame of zeros and more; the reference averages them with the rest).
 */
export function frameCount(length: number, hop: number, frameSize: number): number {
  return length > 0 ? Math.ceil((length + ((frameSize + 1) >> 1)) / hop) : 0;
}

/**
 * One reusable real FFT of a fixed size that returns the magnitude spectrum (size/2 + 1 bins). Every
 * spectral feature of a frame reads this one spectrum: the transform is the costly step.
 */
export class MagnitudeSpectrum {
  readonly size: number;
  readonly bins: number;
  private readonly fft: FFT;
  private readonly input: Float64Array;
  private readonly complex: number[];
  private readonly window: Float32Array;

  constructor(size: number, window: Float32Array = blackmanHarris62(size)) {
    this.size = size;
    this.bins = size / 2 + 1;
    this.fft = new FFT(size);
    this.input = new Float64Array(size);
    this.complex = this.fft.createComplexArray();
    this.window = window;
  }

  /** Windows `frame` and writes |FFT| into `magnitudes` (length bins). */
  compute(frame: Float32Array, magnitudes: Float32Array): void {
    const { input, window, complex } = this;
    for (let i = 0; i < this.size; i++) input[i] = frame[i] * window[i];
    this.fft.realTransform(complex, input);
    for (let k = 0; k < this.bins; k++) {
      const re = complex[2 * k];
      const im = complex[2 * k + 1];
      magnitudes[k] = Math.sqrt(re * re + im * im);
    }
  }
}

/**
 * Autocorrelation by FFT (Wiener–Khinchin) of a frame zero-padded to twice its length, so it is linear,
 * not circular. Used by the pitch tracker, which needs lags up to half the frame.
 */
export class Autocorrelation {
  readonly frameSize: number;
  private readonly fft: FFT;
  private readonly padded: Float64Array;
  private readonly spectrum: number[];
  private readonly power: Float64Array;
  private readonly result: number[];
  private readonly even: EvenRealTransform | undefined;
  private readonly lags: Float64Array;

  /**
   * `evenTransform`: the inverse by the half-length transform of an even sequence (even-transform.ts;
   * frameSize ≥ 4), for the per-frame pitch salience: the same values up to rounding, at about three
   * quarters of the cost. The beat tracker's few period windows keep the full transform.
   */
  constructor(frameSize: number, evenTransform = false) {
    this.frameSize = frameSize;
    this.fft = new FFT(frameSize * 2);
    this.padded = new Float64Array(frameSize * 2);
    this.spectrum = this.fft.createComplexArray();
    this.power = new Float64Array(frameSize * 2);
    this.result = this.fft.createComplexArray();
    this.even = evenTransform ? new EvenRealTransform(frameSize * 2) : undefined;
    this.lags = new Float64Array(frameSize + 1);
  }

  /** Writes r(τ) for τ in [0, out.length) into `out`. */
  compute(frame: Float32Array, out: Float64Array): void {
    const n = this.frameSize * 2;
    this.padded.set(frame);
    this.padded.fill(0, frame.length);
    this.fft.realTransform(this.spectrum, this.padded);
    const s = this.spectrum;
    const p = this.power;
    const half = n / 2;
    for (let k = 0; k <= half; k++) p[k] = s[2 * k] * s[2 * k] + s[2 * k + 1] * s[2 * k + 1];
    // The power spectrum is real and even, so a forward transform equals n × the inverse (half the work
    // of a complex inverse), and an even sequence's transform takes one real FFT of half the length.
    const { even, lags } = this;
    if (even) {
      even.compute(p, lags);
      for (let t = 0; t < out.length; t++) out[t] = lags[t] / n;
      return;
    }
    for (let k = half + 1; k < n; k++) p[k] = p[n - k];
    this.fft.realTransform(this.result, p);
    for (let t = 0; t < out.length; t++) out[t] = this.result[2 * t] / n;
  }
}
