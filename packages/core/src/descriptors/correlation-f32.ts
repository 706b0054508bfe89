import { Float32RealFft } from './fft-f32.ts';

/**
 * The two correlations the pitch features take by FFT (YIN's difference function, the salience's
 * autocorrelation of the spectrum), on the float32 WebAssembly FFT for clip queries (see
 * fft-f32.ts). Same contracts as the fft.js code in pitch-yin.ts and spectrum.ts.
 */

/**
 * c(τ) = Σ_{j<W} x_j·x_{j+τ} for τ = 0 … W, W = frameSize/2: the head of a frame against the whole
 * frame, by one transform of each and an inverse of conj(H)·X (j + τ < frameSize: no wrap-around).
 */
export class Float32HeadCorrelation {
  private readonly fft: Float32RealFft;
  private readonly headSpectrum: Float32Array;

  constructor(readonly frameSize: number) {
    this.fft = new Float32RealFft(frameSize);
    this.headSpectrum = new Float32Array(frameSize);
  }

  /** Writes c(τ) for τ = 0 … frameSize/2 into `out`. */
  compute(frame: Float32Array, out: Float64Array): void {
    const n = this.frameSize;
    const w = n >> 1;
    let input = this.fft.input();
    input.set(frame.subarray(0, w));
    input.fill(0, w);
    this.headSpectrum.set(this.fft.forward());
    input = this.fft.input();
    input.set(frame.subarray(0, n));
    const x = this.fft.forward();
    const h = this.headSpectrum;
    // conj(H)·X in the same layout: DC and Nyquist are real, then (re, im) pairs.
    input = this.fft.input();
    input[0] = h[0] * x[0];
    input[1] = h[1] * x[1];
    for (let k = 2; k < n; k += 2) {
      const hr = h[k];
      const hi = h[k + 1];
      const xr = x[k];
      const xi = x[k + 1];
      input[k] = hr * xr + hi * xi;
      input[k + 1] = hr * xi - hi * xr;
    }
    const c = this.fft.inverse();
    for (let tau = 0; tau <= w; tau++) out[tau] = c[tau] / n;
  }
}

/** Linear autocorrelation of a frame (zero-padded to twice its length), as spectrum.ts's Autocorrelation. */
export class Float32Autocorrelation {
  private readonly fft: Float32RealFft;

  constructor(readonly frameSize: number) {
    this.fft = new Float32RealFft(frameSize * 2);
  }

  /** Writes r(τ) for τ in [0, out.length) into `out`. */
  compute(frame: Float32Array, out: Float64Array): void {
    const n = this.frameSize * 2;
    let input = this.fft.input();
    input.set(frame);
    input.fill(0, frame.length);
    const s = this.fft.forward();
    // The power spectrum, real: its inverse is the autocorrelation (times n).
    input = this.fft.input();
    input[0] = s[0] * s[0];
    input[1] = s[1] * s[1];
    for (let k = 2; k < n; k += 2) {
      input[k] = s[k] * s[k] + s[k + 1] * s[k + 1];
      input[k + 1] = 0;
    }
    const r = this.fft.inverse();
    for (let t = 0; t < out.length; t++) out[t] = r[t] / n;
  }
}
