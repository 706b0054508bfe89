import { realSamples } from '@earshot/fixtures';
import { describe, expect, it } from 'vitest';
import { aggregateSeries, aggregateVectors, POOL_STATS } from './pool-aggregator.ts';

describe('aggregateSeries (PoolAggregator)', () => {
  it('computes the statistics by hand on a short series', () => {
    // x = 1 3 2 6: Δx = 2 −1 4, |Δx| = 2 1 4; Δ²x = −3 5, |Δ²x| = 3 5 (absolute value taken last).
    const s = aggregateSeries([1, 3, 2, 6]);
    expect(s.mean).toBe(3);
    expect(s.var).toBe(3.5);
    expect(s.stdev).toBeCloseTo(Math.sqrt(3.5), 12);
    expect(s.median).toBe(2.5);
    expect([s.min, s.max]).toEqual([1, 6]);
    expect(s.dmean).toBeCloseTo(7 / 3, 12);
    expect(s.dvar).toBeCloseTo(((2 - 7 / 3) ** 2 + (1 - 7 / 3) ** 2 + (4 - 7 / 3) ** 2) / 3, 12);
    expect(s.dmean2).toBe(4);
    expect(s.dvar2).toBe(1);
  });

  it('gives a single value zero derivatives, and two values a zero second derivative', () => {
    expect(aggregateSeries([5])).toEqual({
      dmean: 0,
      dmean2: 0,
      dvar: 0,
      dvar2: 0,
      max: 5,
      mean: 5,
      median: 5,
      min: 5,
      stdev: 0,
      var: 0,
    });
    const two = aggregateSeries([1, 4]);
    expect([two.dmean, two.dvar, two.dmean2, two.dvar2]).toEqual([3, 0, 0, 0]);
    expect(two.median).toBe(2.5);
  });

  it('aggregates each dimension of a vector series on its own', () => {
    const v = aggregateVectors([
      [1, 10],
      [3, 10],
      [2, 40],
    ]);
    expect(v.mean).toEqual([2, 20]);
    expect(v.median).toEqual([2, 10]);
    expect(v.dmean).toEqual([1.5, 15]);
    expect(() => aggregateVectors([[1], [1, 2]])).toThrow(/rows of 1 and 2/);
  });

  it('writes the statistics the native extractor writes, which satisfy the same identities', () => {
    // Every statistics block of the native JSON has exactly these keys, stdev² = var, min ≤ median ≤ max.
    const native = realSamples().find((s) => s.name === 'loop_amen_full')?.reference as Record<string, any>;
    let blocks = 0;
    const visit = (node: Record<string, any>) => {
      if ('mean' in node && 'var' in node) {
        blocks++;
        expect(Object.keys(node).sort()).toEqual([...POOL_STATS]);
        const each = (k: string) => (Array.isArray(node[k]) ? node[k] : [node[k]]) as number[];
        each('var').forEach((v, i) => {
          // Float32 values: equal to about 7 digits.
          expect(Math.abs(each('stdev')[i] ** 2 - v)).toBeLessThanOrEqual(1e-5 * Math.abs(v) + 1e-30);
          expect(each('min')[i]).toBeLessThanOrEqual(each('median')[i]);
          expect(each('median')[i]).toBeLessThanOrEqual(each('max')[i]);
        });
        return;
      }
      for (const value of Object.values(node))
        if (value && typeof value === 'object' && !Array.isArray(value)) visit(value);
    };
    visit(native);
    expect(blocks).toBeGreaterThan(60);
    expect(Object.keys(aggregateSeries([1, 2, 3])).sort()).toEqual([...POOL_STATS]);
  });
});
