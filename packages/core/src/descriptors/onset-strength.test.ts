import { describe, expect, it } from 'vitest';
import { MT19937_MAX, mt19937 } from './mt19937.ts';
import { onsetStrength } from './onset-strength.ts';

/** The definition, one log1p per bin and frame. */
function direct(mag: Float32Array, previous: Float32Array): number {
  let rise = 0;
  for (let k = 0; k < mag.length; k++) {
    const up = Math.log1p(1000 * mag[k]) - Math.log1p(1000 * previous[k]);
    if (up > 0) rise += up;
  }
  return rise;
}

describe('onsetStrength', () => {
  it('equals the sum of rectified log1p differences on spectra from silent to loud', () => {
    const next = mt19937(7);
    const uniform = () => next() / MT19937_MAX;
    for (const scale of [1e-9, 1e-4, 0.01, 1, 300]) {
      const a = new Float32Array(1025);
      const b = new Float32Array(1025);
      for (let k = 0; k < a.length; k++) {
        a[k] = scale * uniform() ** 4;
        b[k] = scale * uniform() ** 4;
      }
      const expected = direct(a, b);
      expect(expected).toBeGreaterThan(0);
      expect(Math.abs(onsetStrength(a, b) - expected)).toBeLessThan(1e-12 * Math.max(1, expected));
    }
  });

  it('is 0 for a spectrum that does not rise, and counts only the rising bins', () => {
    const loud = Float32Array.of(1, 2, 3, 0);
    expect(onsetStrength(loud, loud)).toBe(0);
    expect(onsetStrength(new Float32Array(4), loud)).toBe(0);
    const up = Float32Array.of(1, 0, 3, 0);
    const from = Float32Array.of(0, 2, 1, 0);
    expect(onsetStrength(up, from)).toBeCloseTo(Math.log1p(1000) + Math.log1p(3000) - Math.log1p(1000), 12);
  });

  it('folds large products into the sum instead of overflowing', () => {
    const loud = new Float32Array(2000).fill(1e4);
    const expected = 2000 * Math.log1p(1e7);
    expect(onsetStrength(loud, new Float32Array(2000))).toBeCloseTo(expected, 8);
  });
});
