/**
 * Pitch salience as the reference extractor defines it (Essentia's PitchSalience): the autocorrelation of
 * the magnitude spectrum, its largest value at lags between 100 Hz and 5 kHz divided by its value at lag 0.
 * A harmonic spectrum repeats every f0, so its autocorrelation peaks again at the lag f0 (→ near 1); noise
 * and single clicks have a flat spectrum whose autocorrelation falls off at once (→ low values).
 * The lag range is the reference's: from ⌊100·bins/Nyquist⌋ up to, not including, ⌊5000·bins/Nyquist⌋
 * (4 to 231 at 2048 points and 44.1 kHz). The lowest lag matters: on a noisy spectrum the autocorrelation
 * is largest there, so starting one lag later lowers the salience of noisy frames.
 */
import { Float32Autocorrelation } from './correlation-f32.ts';
import { Autocorrelation } from './spectrum.ts';

export const SALIENCE_LOW_HZ = 100;
export const SALIENCE_HIGH_HZ = 5000;

export class SpectralPitchSalience {
  private readonly autocorrelation: Autocorrelation | Float32Autocorrelation;
  private readonly input: Float32Array;
  private readonly lags: Float64Array;
  private readonly lowLag: number;

  /**
   * `bins` magnitude bins spaced `binHz` apart; the autocorrelation uses the first power-of-two bins.
   * `float32Fft`: by the float32 FFT (clip queries only, see fft-f32.ts).
   */
  constructor(bins: number, binHz: number, float32Fft = false) {
    const size = 2 ** Math.floor(Math.log2(bins));
    this.autocorrelation = float32Fft ? new Float32Autocorrelation(size) : new Autocorrelation(size, true);
    this.input = new Float32Array(size);
    const nyquist = binHz * (bins - 1);
    this.lowLag = Math.max(1, Math.floor((SALIENCE_LOW_HZ * bins) / nyquist));
    const endLag = Math.min(size, Math.floor((SALIENCE_HIGH_HZ * bins) / nyquist));
    this.lags = new Float64Array(endLag);
  }

  /** 0…1; 0 for a silent spectrum. */
  compute(magnitudes: Float32Array): number {
    this.input.set(magnitudes.subarray(0, this.input.length));
    this.autocorrelation.compute(this.input, this.lags);
    const zero = this.lags[0];
    if (!(zero > 0)) return 0;
    let best = 0;
    for (let lag = this.lowLag; lag < this.lags.length; lag++)
      if (this.lags[lag] > best) best = this.lags[lag];
    return Math.min(1, best / zero);
  }
}
