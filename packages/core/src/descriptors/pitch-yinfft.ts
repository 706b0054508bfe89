/**
 * YIN in the frequency domain (Brossier's YinFFT, Essentia's PitchYinFFT with its defaults): the pitch the
 * reference extractor feeds its harmonic peaks (sfx.inharmonicity) from the low-level spectrum. The
 * squared magnitudes, weighted by a loudness-like curve, are transformed back to an autocorrelation; the
 * YIN difference d(τ) = Σ − r(τ) is normalized by its running mean, and the pitch is the sample rate over
 * the lag of its deepest dip (parabolic interpolation) between 2 samples and half the frame.
 */
import { EvenRealTransform } from './even-transform.ts';

/**
 * The weighting curve (dB at these frequencies, linear in between) Essentia's PitchYinFFT uses by default:
 * a hearing-threshold-like tilt that favours 1–5 kHz, so rumble and hiss weigh less in the dip.
 */
const WEIGHT_HZ = [
  0, 20, 25, 31.5, 40, 50, 63, 80, 100, 125, 160, 200, 250, 315, 400, 500, 630, 800, 1000, 1250, 1600, 2000,
  2500, 3150, 4000, 5000, 6300, 8000, 9000, 10000, 12500, 15000, 20000, 25100,
];
const WEIGHT_DB = [
  -75.8, -70.1, -60.8, -52.1, -44.2, -37.5, -31.3, -25.6, -20.9, -16.5, -12.6, -9.6, -7.0, -4.7, -3.0, -1.8,
  -0.8, -0.2, -0.0, 0.5, 1.6, 3.2, 5.4, 7.8, 8.1, 5.3, -2.4, -11.1, -12.8, -12.2, -7.4, -17.8, -17.8, -17.8,
];

/** Weight per bin: the curve interpolated linearly in dB, applied to the power as 10^(dB/20). */
function binWeights(bins: number, binHz: number): Float64Array {
  const w = new Float64Array(bins);
  let j = 1;
  for (let k = 0; k < bins; k++) {
    const f = k * binHz;
    while (j < WEIGHT_HZ.length - 1 && f > WEIGHT_HZ[j]) j++;
    const f0 = WEIGHT_HZ[j - 1];
    const f1 = WEIGHT_HZ[j];
    const db = WEIGHT_DB[j - 1] + ((WEIGHT_DB[j] - WEIGHT_DB[j - 1]) * (f - f0)) / (f1 - f0);
    w[k] = 10 ** (db / 20);
  }
  return w;
}

export class PitchYinFFT {
  private readonly even: EvenRealTransform;
  private readonly weights: Float64Array;
  private readonly power: Float64Array;
  private readonly transformed: Float64Array;
  private readonly yin: Float64Array;
  /** Lag scale of the reference's peak picker (its range is half the frame + 1 over as many − 1 points). */
  private readonly lagScale: number;

  constructor(
    readonly frameSize: number,
    readonly sampleRate: number,
  ) {
    const bins = frameSize / 2 + 1;
    this.even = new EvenRealTransform(frameSize);
    this.weights = binWeights(bins, sampleRate / frameSize);
    this.power = new Float64Array(bins);
    this.transformed = new Float64Array(bins);
    this.yin = new Float64Array(bins);
    this.lagScale = bins / (bins - 1);
  }

  /** Hz from a magnitude spectrum of frameSize/2 + 1 bins; 0 for a silent spectrum. */
  pitch(magnitudes: Float32Array): number {
    const { power, weights, yin, frameSize } = this;
    const half = frameSize / 2;
    let sum = 0;
    for (let k = 0; k <= half; k++) {
      const p = magnitudes[k] * magnitudes[k] * weights[k];
      power[k] = p;
      sum += p;
    }
    // The reference doubles the half spectrum's sum (DC and Nyquist counted twice) as the lag-0 term.
    sum *= 2;
    if (sum === 0) return 0;
    // The weighted power spectrum mirrored is real and even: its transform is the autocorrelation.
    this.even.compute(power, this.transformed);
    const r = this.transformed;
    let running = 0;
    yin[0] = 1;
    for (let t = 1; t <= half; t++) {
      const d = sum - r[t];
      running += d;
      yin[t] = (d * t) / running;
    }
    // Deepest dip: a falling edge at the lowest lag counts, then interior local minima up to half − 1.
    let bestLag = 0;
    let bestValue = Number.POSITIVE_INFINITY;
    if (yin[2] < yin[3]) {
      bestLag = 2;
      bestValue = yin[2];
    }
    for (let t = 3; t < half; t++) {
      const b = yin[t];
      if (!(b < yin[t - 1] && b < yin[t + 1])) continue;
      const a = yin[t - 1];
      const c = yin[t + 1];
      const shift = (0.5 * (a - c)) / (a - 2 * b + c);
      const value = b - 0.25 * (a - c) * shift;
      if (value < bestValue) {
        bestValue = value;
        bestLag = t + shift;
      }
    }
    return bestLag > 0 ? this.sampleRate / (bestLag * this.lagScale) : 0;
  }
}
