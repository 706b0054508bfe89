import { type Float32RealFft, sharedFloat32Fft } from './fft-f32.ts';
import { blackmanHarris62 } from './spectrum.ts';

/**
 * MagnitudeSpectrum's contract (window, |FFT|, size/2 + 1 bins) on the float32 WebAssembly FFT (see
 * fft-f32.ts for who uses it); `loadFloat32Fft()` must have finished before one is made.
 */
export class Float32MagnitudeSpectrum {
  readonly size: number;
  readonly bins: number;
  private readonly fft: Float32RealFft;
  private readonly window: Float32Array;

  constructor(size: number, window: Float32Array = blackmanHarris62(size)) {
    this.size = size;
    this.bins = size / 2 + 1;
    this.fft = sharedFloat32Fft(size);
    this.window = window;
  }

  /** Windows `frame` and writes |FFT| into `magnitudes` (length bins). */
  compute(frame: Float32Array, magnitudes: Float32Array): void {
    const input = this.fft.input();
    const window = this.window;
    for (let i = 0; i < this.size; i++) input[i] = frame[i] * window[i];
    const out = this.fft.forward();
    const last = this.bins - 1;
    magnitudes[0] = Math.abs(out[0]);
    magnitudes[last] = Math.abs(out[1]);
    for (let k = 1; k < last; k++) {
      const re = out[2 * k];
      const im = out[2 * k + 1];
      magnitudes[k] = Math.sqrt(re * re + im * im);
    }
  }
}
