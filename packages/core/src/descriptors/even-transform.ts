import FFT from 'fft.js';

/**
 * The DFT of a real, even sequence of length N (x_k = x_{N−k}): real, X_t = Σ_k x_k·cos(2πkt/N), from its
 * first N/2 + 1 values, by one real FFT of half the length (a DCT-I by FFT, as in Press et al.'s
 * "cosine transform"). The autocorrelations taken from power spectra (pitch salience, YinFFT, the beat
 * tracker's periods) transform such sequences: the half-length FFT costs about half of the full one,
 * and the values match it up to rounding.
 */
export class EvenRealTransform {
  readonly size: number;
  private readonly half: number;
  private readonly fft: FFT;
  private readonly folded: Float64Array;
  private readonly spectrum: number[];
  private readonly cos: Float64Array;
  private readonly sin: Float64Array;

  /** `size` N: a power of two, at least 8. */
  constructor(size: number) {
    if (size < 8 || (size & (size - 1)) !== 0) throw new RangeError(`EvenRealTransform: size ${size}`);
    this.size = size;
    const m = size / 2;
    this.half = m;
    this.fft = new FFT(m);
    this.folded = new Float64Array(m);
    this.spectrum = this.fft.createComplexArray();
    this.cos = new Float64Array(m / 2);
    this.sin = new Float64Array(m / 2);
    for (let j = 0; j < m / 2; j++) {
      this.cos[j] = Math.cos((Math.PI * j) / m);
      this.sin[j] = Math.sin((Math.PI * j) / m);
    }
  }

  /** `x` holds x_0 … x_{N/2}; writes X_t for t = 0 … out.length − 1 (at most N/2 + 1 values). */
  compute(x: Float64Array, out: Float64Array): void {
    const m = this.half;
    const { folded: y, cos, sin } = this;
    // y_j = (x_j + x_{M−j})/2 ∓ sin(πj/M)·(x_j − x_{M−j}): its real FFT holds the even outputs in its real
    // parts and the differences of consecutive odd outputs in its imaginary parts; the odd ones are summed
    // up from X_1 = x_0 − x_M + 2·Σ x_j·cos(πj/M).
    let odd = 0.5 * (x[0] - x[m]);
    y[0] = 0.5 * (x[0] + x[m]);
    for (let j = 1; j < m / 2; j++) {
      const a = 0.5 * (x[j] + x[m - j]);
      const b = x[j] - x[m - j];
      y[j] = a - sin[j] * b;
      y[m - j] = a + sin[j] * b;
      odd += cos[j] * b;
    }
    y[m / 2] = x[m / 2];
    this.fft.realTransform(this.spectrum, y);
    const z = this.spectrum;
    const count = Math.min(out.length, m + 1);
    for (let t = 0; t < count; t += 2) out[t] = 2 * z[t];
    for (let t = 1; t < count; t += 2) {
      if (t > 1) odd -= z[t];
      out[t] = 2 * odd;
    }
  }
}
