import FFT from 'fft.js';
import { describe, expect, it } from 'vitest';
import { EvenRealTransform } from './even-transform.ts';

/** The full-length real FFT of the mirrored sequence: what the even transform stands in for. */
function fullTransform(half: Float64Array, size: number): Float64Array {
  const x = new Float64Array(size);
  for (let k = 0; k <= size / 2; k++) {
    x[k] = half[k];
    if (k > 0 && k < size / 2) x[size - k] = half[k];
  }
  const fft = new FFT(size);
  const out = fft.createComplexArray();
  fft.realTransform(out, x);
  return Float64Array.from({ length: size / 2 + 1 }, (_, t) => out[2 * t]);
}

describe('EvenRealTransform', () => {
  it('gives the full FFT of the mirrored sequence, up to rounding, at every size the analysis uses', () => {
    for (const size of [8, 16, 512, 2048, 4096]) {
      // A decaying, rough power-like spectrum: positive, mostly small, a few large values.
      const half = Float64Array.from(
        { length: size / 2 + 1 },
        (_, k) => Math.exp(-k / (size / 16)) * (1.2 + Math.sin(k * 1.7)) + (k % 37 === 3 ? 5 : 0),
      );
      const expected = fullTransform(half, size);
      const out = new Float64Array(size / 2 + 1);
      new EvenRealTransform(size).compute(half, out);
      const scale = Math.max(...expected.map(Math.abs));
      for (let t = 0; t < out.length; t++) expect(Math.abs(out[t] - expected[t])).toBeLessThan(1e-13 * scale);
    }
  });

  it('writes only as many outputs as asked for', () => {
    const half = Float64Array.from({ length: 17 }, (_, k) => 1 / (1 + k));
    const expected = fullTransform(half, 32);
    const out = new Float64Array(5);
    new EvenRealTransform(32).compute(half, out);
    for (let t = 0; t < 5; t++) expect(out[t]).toBeCloseTo(expected[t], 12);
  });

  it('refuses a size that is not a power of two of at least 8', () => {
    expect(() => new EvenRealTransform(4)).toThrow();
    expect(() => new EvenRealTransform(24)).toThrow();
  });
});
