import { describe, expect, it } from 'vitest';
import { selectKth } from './select-kth.ts';

describe('selectKth', () => {
  it('finds every order statistic a sort finds, with nothing larger before it and nothing smaller after', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const inputs = [
      Array.from({ length: 101 }, () => Math.round(random() * 20)), // many ties
      Array.from({ length: 64 }, (_, i) => i), // sorted
      Array.from({ length: 64 }, (_, i) => 64 - i), // reversed
      Array.from({ length: 33 }, () => 0.25), // all equal
    ];
    for (const values of inputs) {
      const sorted = [...values].sort((x, y) => x - y);
      for (const Kind of [Float32Array, Float64Array]) {
        for (let k = 0; k < values.length; k++) {
          const a = Kind.from(values);
          expect(selectKth(a, k, 0, a.length - 1)).toBe(sorted[k]);
          for (let i = 0; i < k; i++) expect(a[i]).toBeLessThanOrEqual(a[k]);
          for (let i = k + 1; i < a.length; i++) expect(a[i]).toBeGreaterThanOrEqual(a[k]);
        }
      }
    }
  });

  it('works within a sub-range and leaves the rest alone', () => {
    const a = Float64Array.from([9, 5, 3, 8, 1, 7]);
    // a[1..4] sorted would be 1, 3, 5, 8: index 2 (of the whole array) holds 3.
    expect(selectKth(a, 2, 1, 4)).toBe(3);
    expect(a[0]).toBe(9);
    expect(a[5]).toBe(7);
  });
});
