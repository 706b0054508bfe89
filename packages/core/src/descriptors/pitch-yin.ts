/**
 * The reference extractor's low-level pitch track (Essentia's PitchYin as the Freesound extractor runs it:
 * 2048-sample raw frames, hop 1024, 20 Hz – Nyquist, tolerance 0.15, interpolation on). `lowlevel.pitch`
 * and the pitch-envelope `sfx.*` descriptors are statistics of this track over every frame, unvoiced and
 * noisy frames included. Our own YIN (pitch.ts: the note and variant-B pitch, with its own choice of lag
 * and a longer retry frame) reads the same difference function.
 */
import FFT from 'fft.js';
import { Float32HeadCorrelation } from './correlation-f32.ts';

export interface PitchYinEstimate {
  /** Hz; 0 only when no candidate period exists (a frame of exact zeros). */
  pitch: number;
  /** 1 − the interpolated CMND value at the chosen period, floored at 0 (can exceed 1, as the reference). */
  confidence: number;
}

/** Frames whose mean power is below this are "silent" for the reference's FrameCutter (−100 dB). */
const SILENT_POWER = 1e-10;
/** The reference fills silent frames with uniform noise of this amplitude (NoiseAdder, level −100 dB). */
const NOISE_AMPLITUDE = 1e-10;

/**
 * YIN's cumulative-mean-normalized difference function as the reference defines it: over a fixed window of
 * W = frameSize/2 samples, d(τ) = Σ_{j<W} (x_j − x_{j+τ})² for τ ≤ W, computed as E_head + E[τ, τ+W) −
 * 2·c(τ) with c the cross-correlation of the head with the frame (three real transforms);
 * CMND(τ) = d(τ)·τ / Σ_{k≤τ} d(k), and 0/0 counts as 1. Shared by the reference's pitch and ours.
 */
export class YinDifference {
  readonly half: number;
  /** CMND(τ) for τ = 0 … W (CMND(0) = 1). */
  readonly cmnd: Float64Array;
  /** Σ x² over the frame last computed. */
  energy = 0;
  private readonly fft: FFT;
  private readonly head: Float64Array;
  private readonly full: Float64Array;
  private readonly headSpectrum: number[];
  private readonly frameSpectrum: number[];
  /** The real sequence whose forward transform is the correlation (see correlate). */
  private readonly product: Float64Array;
  private readonly correlation: number[];
  private readonly prefix: Float64Array;
  /** c(τ) for τ = 0 … W. */
  private readonly cross: Float64Array;
  /** The float32 WebAssembly correlation (clip queries), else undefined: fft.js in float64. */
  private readonly float32: Float32HeadCorrelation | undefined;

  /** `float32Fft`: the correlation by the float32 FFT (clip queries only, see fft-f32.ts). */
  constructor(
    readonly frameSize: number,
    float32Fft = false,
  ) {
    const w = frameSize >> 1;
    this.half = w;
    this.cmnd = new Float64Array(w + 1);
    this.cross = new Float64Array(w + 1);
    this.float32 = float32Fft ? new Float32HeadCorrelation(frameSize) : undefined;
    this.fft = new FFT(frameSize);
    this.head = new Float64Array(frameSize);
    this.full = new Float64Array(frameSize);
    this.headSpectrum = this.fft.createComplexArray();
    this.frameSpectrum = this.fft.createComplexArray();
    this.product = new Float64Array(frameSize);
    this.correlation = this.fft.createComplexArray();
    this.prefix = new Float64Array(frameSize + 1);
  }

  compute(frame: Float32Array): void {
    const n = this.frameSize;
    const w = this.half;
    const { prefix, cmnd } = this;
    for (let i = 0; i < n; i++) prefix[i + 1] = prefix[i] + frame[i] * frame[i];
    this.energy = prefix[n];
    const c = this.cross;
    if (this.float32) this.float32.compute(frame, c);
    else this.correlate(frame);
    const headEnergy = prefix[w];
    cmnd[0] = 1;
    let sum = 0;
    for (let tau = 1; tau <= w; tau++) {
      const d = Math.max(0, headEnergy + (prefix[tau + w] - prefix[tau]) - 2 * c[tau]);
      sum += d;
      const v = (d * tau) / sum;
      cmnd[tau] = Number.isNaN(v) ? 1 : v;
    }
  }

  /** c(τ) into `cross` by fft.js in float64 (what every stored analysis reads). */
  private correlate(frame: Float32Array): void {
    const n = this.frameSize;
    const w = this.half;
    const { head, full } = this;
    for (let i = 0; i < n; i++) full[i] = frame[i];
    for (let i = 0; i < w; i++) head[i] = frame[i];
    this.fft.realTransform(this.headSpectrum, head);
    this.fft.realTransform(this.frameSpectrum, full);
    // c(τ) = Σ_j head_j·x_{j+τ} is the inverse transform of P = conj(H)·X (j + τ < n for τ ≤ W, so no
    // wrap-around). P is Hermitian: its real part A is even in k, its imaginary part B odd. A forward
    // real transform of q = A + B (q_{n−k} = A_k − B_k) then holds Σ A·cos in its real part and −Σ B·sin
    // in its imaginary part, whose sum is n·c(τ): one real transform instead of a complex inverse of
    // twice its cost, the same values up to rounding.
    const h = this.headSpectrum;
    const x = this.frameSpectrum;
    const q = this.product;
    const half = n >> 1;
    q[0] = h[0] * x[0];
    q[half] = h[2 * half] * x[2 * half];
    for (let k = 1; k < half; k++) {
      const hr = h[2 * k];
      const hi = h[2 * k + 1];
      const xr = x[2 * k];
      const xi = x[2 * k + 1];
      const a = hr * xr + hi * xi;
      const b = hr * xi - hi * xr;
      q[k] = a + b;
      q[n - k] = a - b;
    }
    this.fft.realTransform(this.correlation, q);
    const r = this.correlation;
    for (let tau = 0; tau <= w; tau++) this.cross[tau] = (r[2 * tau] + r[2 * tau + 1]) / n;
  }
}

/**
 * The reference's PitchYin on a YinDifference: period = the first local minimum of the CMND below the
 * tolerance between τ = 2 and W, else the deepest local minimum there, found and parabola-interpolated
 * as the reference's PeakDetection does on −CMND (including its position scale (W+1)/W and its edge
 * rules); pitch = sampleRate / period, confidence = max(0, 1 − interpolated minimum).
 */
export class ReferencePitchYin {
  readonly difference: YinDifference;
  /** −CMND, as the reference hands it to its peak detection. */
  private readonly negCmnd: Float64Array;
  private readonly tauMin: number;
  private readonly tauMax: number;
  private readonly scale: number;

  constructor(
    readonly frameSize: number,
    readonly sampleRate: number,
    minHz = 20,
    maxHz = sampleRate / 2,
    private readonly tolerance = 0.15,
    float32Fft = false,
  ) {
    this.difference = new YinDifference(frameSize, float32Fft);
    const w = this.difference.half;
    this.negCmnd = new Float64Array(w + 1);
    this.tauMax = Math.min(Math.ceil(sampleRate / minHz), w);
    this.tauMin = Math.min(Math.floor(sampleRate / maxHz), w);
    // The reference's peak detection maps index i of the (W+1)-long array to position i·(W+1)/W.
    this.scale = (w + 1) / w;
  }

  estimate(frame: Float32Array): PitchYinEstimate {
    this.difference.compute(frame);
    return this.pick(this.difference);
  }

  /** The estimate from a difference function already computed on the frame (same frame size). */
  pick(difference: YinDifference): PitchYinEstimate {
    const { negCmnd } = this;
    for (let tau = 0; tau < negCmnd.length; tau++) negCmnd[tau] = -difference.cmnd[tau];
    // The first peak of −CMND above −tolerance, else the highest peak (the smaller position on a tie).
    if (!this.scanPeaks(-this.tolerance, true)) this.scanPeaks(Number.NEGATIVE_INFINITY, false);
    if (!(this.bestPosition > 0)) return { pitch: 0, confidence: 0 };
    return { pitch: this.sampleRate / this.bestPosition, confidence: Math.max(0, 1 + this.bestValue) };
  }

  /** The peak scanPeaks keeps (position in lags, value of −CMND there); position 0 = none. */
  private bestPosition = 0;
  private bestValue = 0;

  /** Keeps the peak at (position, value) if it is the first (`first`) or higher than the one kept. */
  private offer(position: number, value: number, first: boolean): boolean {
    if (this.bestPosition === 0 || value > this.bestValue) {
      this.bestPosition = position;
      this.bestValue = value;
    }
    return first;
  }

  /** Keeps the parabola vertex through the points around index j (the reference's interpolation). */
  private offerVertex(j: number, first: boolean, limit: number): boolean | undefined {
    const a = this.negCmnd;
    const left = a[j - 1];
    const mid = a[j];
    const right = a[j + 1];
    const delta = (0.5 * (left - right)) / (left - 2 * mid + right);
    const position = (j + delta) * this.scale;
    if (position > limit) return undefined;
    return this.offer(position, mid - 0.25 * (left - right) * delta, first);
  }

  /**
   * Walks the peaks of −CMND the reference's PeakDetection reports between tauMin and tauMax, in order of
   * position, above `threshold`, keeping the first (`first`) or the highest; true once a peak is kept
   * with `first`.
   */
  private scanPeaks(threshold: number, first: boolean): boolean {
    this.bestPosition = 0;
    this.bestValue = 0;
    const a = this.negCmnd;
    const size = a.length;
    const scale = this.scale;
    let i = Math.max(0, Math.ceil(this.tauMin / scale));
    if (i + 1 < size && a[i] > a[i + 1] && a[i] > threshold && this.offer(i * scale, a[i], first))
      return true;
    for (;;) {
      while (i + 1 < size - 1 && a[i] >= a[i + 1]) i++;
      while (i + 1 < size - 1 && a[i] < a[i + 1]) i++;
      let j = i;
      while (j + 1 < size - 1 && a[j] === a[j + 1]) j++;
      if (j + 1 < size - 1 && a[j + 1] < a[j] && a[j] > threshold) {
        if (j !== i) {
          const position = (i + j) * 0.5 * scale;
          if (position > this.tauMax) break;
          if (this.offer(position, a[i], first)) return true;
        } else {
          const kept = this.offerVertex(j, first, this.tauMax);
          if (kept === undefined) break;
          if (kept) return true;
        }
      }
      i = j;
      if (i + 1 >= size - 1) {
        if (i === size - 2 && a[i - 1] < a[i] && a[i + 1] < a[i] && a[i] > threshold) {
          if (this.offerVertex(i, first, Number.POSITIVE_INFINITY)) return true;
        }
        break;
      }
    }
    const last = this.tauMax / scale;
    if (size - 2 < last && last <= size - 1 && a[size - 1] > a[size - 2] && a[size - 1] > threshold)
      return this.offer((size - 1) * scale, a[size - 1], first);
    return this.bestPosition > 0 && first;
  }
}

/**
 * Deterministic uniform noise in [−1, 1) (a 32-bit LCG, fixed seed): the reference adds seeded noise to
 * silent frames, so a frame of exact zeros gets a pitch (of that noise) rather than none.
 */
export class FrameNoise {
  private state = 0;
  next(): number {
    this.state = (Math.imul(this.state, 1664525) + 1013904223) >>> 0;
    return this.state / 2 ** 31 - 1;
  }
}

/**
 * Prepares a raw frame the way the reference's FrameCutter hands it on: a silent frame (mean power below
 * −100 dB) gets uniform noise of amplitude 1e-10 added. Returns `frame` itself when it is not silent.
 */
export function withSilenceNoise(
  frame: Float32Array,
  scratch: Float32Array,
  noise: FrameNoise,
): Float32Array {
  let power = 0;
  for (let i = 0; i < frame.length; i++) power += frame[i] * frame[i];
  if (power / frame.length >= SILENT_POWER) return frame;
  for (let i = 0; i < frame.length; i++) scratch[i] = frame[i] + NOISE_AMPLITUDE * noise.next();
  return scratch;
}
