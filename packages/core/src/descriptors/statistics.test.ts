import { describe, expect, it } from 'vitest';
import { median, scalarStats, vectorStats } from './statistics.ts';

describe('frame statistics (Essentia PoolAggregator semantics)', () => {
  it('matches hand-computed values on a step series', () => {
    // 1 1 1 0 0: |Δ| = 0 0 1 0 → dmean 0.25, dvar 0.1875; Δ² = 0 −1 1 → |Δ²| mean 2/3.
    const s = scalarStats([1, 1, 1, 0, 0]);
    expect(s.mean).toBeCloseTo(0.6, 12);
    expect(s.var).toBeCloseTo(0.24, 12);
    expect(s.stdev).toBeCloseTo(Math.sqrt(0.24), 12);
    expect(s.median).toBe(1);
    expect(s.min).toBe(0);
    expect(s.max).toBe(1);
    expect(s.dmean).toBeCloseTo(0.25, 12);
    expect(s.dvar).toBeCloseTo(0.1875, 12);
    expect(s.dmean2).toBeCloseTo(2 / 3, 12);
    expect(s.dvar2).toBeCloseTo(2 / 9, 12);
  });

  it('reproduces native Essentia on a 26-frame 0/1 series (bd_808 silence_rate_20dB)', () => {
    // 24 ones then 2 zeros, one transition: Essentia wrote mean 0.923077, dmean 0.04, dmean2 0.083333,
    // dvar 0.0384, dvar2 0.076389 for this series.
    const series = [...new Array(24).fill(1), 0, 0];
    const s = scalarStats(series);
    expect(s.mean).toBeCloseTo(0.923077, 5);
    expect(s.dmean).toBeCloseTo(0.04, 6);
    expect(s.dmean2).toBeCloseTo(0.083333, 5);
    expect(s.dvar).toBeCloseTo(0.0384, 6);
    expect(s.dvar2).toBeCloseTo(0.076389, 5);
  });

  it('gives zeros, never NaN, for empty and single-value series', () => {
    for (const series of [[], [5]]) {
      const s = scalarStats(series);
      for (const v of Object.values(s)) expect(Number.isFinite(v)).toBe(true);
      expect(s.dmean).toBe(0);
    }
  });

  it('computes vector statistics per dimension', () => {
    const v = vectorStats(Float32Array.from([1, 10, 3, 30]), 2);
    expect(v.mean).toEqual([2, 20]);
    expect(v.min).toEqual([1, 10]);
    expect(v.max).toEqual([3, 30]);
    expect(v.dmean).toEqual([2, 20]);
  });

  it('takes the median by selection with the value a sort gives (odd, even, ties, sorted, reversed)', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    const bySort = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      const m = s.length >> 1;
      return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
    };
    const cases: number[][] = [[3], [2, 1], [0, 0, 0, 1], [1, 0, 1, 0, 1, 0]];
    for (const n of [5, 6, 101, 2584]) {
      const values = Array.from({ length: n }, () => random() * 2 - 1);
      cases.push(
        values,
        [...values].sort((a, b) => a - b),
        [...values].sort((a, b) => b - a),
      );
      cases.push(
        values.map((v) => (v > 0.3 ? 1 : 0)),
        values.map((v) => Math.round(v * 3)),
      );
    }
    // (+ 0 reads −0 as 0: the two orders may differ on which zero is in the middle; JSON writes both as 0.)
    for (const values of cases) expect(median(values) + 0).toBe(bySort(values) + 0);
  });
});
