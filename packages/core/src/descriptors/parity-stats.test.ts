import { describe, expect, it } from 'vitest';
import {
  filterAgreement,
  jaccard,
  quantile,
  quartileRanges,
  ranks,
  selectInRange,
  spearman,
} from '../testing/parity-stats.ts';

describe('ranks and spearman', () => {
  it('gives tied values their mean rank', () => {
    expect(ranks([10, 20, 20, 5])).toEqual([1, 2.5, 2.5, 0]);
  });
  it('is 1 for any increasing transform and −1 for a decreasing one', () => {
    const x = [3, 1, 4, 1.5, 9, 2.6];
    expect(
      spearman(
        x,
        x.map((v) => Math.exp(v)),
      ),
    ).toBeCloseTo(1, 12);
    expect(
      spearman(
        x,
        x.map((v) => -v * 7),
      ),
    ).toBeCloseTo(-1, 12);
  });
  it('matches the textbook value 1 − 6Σd²/(n(n²−1)) without ties', () => {
    const a = [1, 2, 3, 4, 5];
    const b = [2, 1, 4, 3, 5]; // d² sum = 4
    expect(spearman(a, b)).toBeCloseTo(1 - (6 * 4) / (5 * 24), 12);
  });
  it('is 0 when one side is constant', () => {
    expect(spearman([1, 2, 3], [7, 7, 7])).toBe(0);
  });
});

describe('quantiles and ranges', () => {
  it('interpolates between order statistics', () => {
    expect(quantile([4, 1, 3, 2, 5], 0.5)).toBe(3);
    expect(quantile([1, 2, 3, 4], 0.25)).toBeCloseTo(1.75, 12);
  });
  it('splits the reference into four quarters and two halves with open outer ends', () => {
    const r = quartileRanges([1, 2, 3, 4, 5]);
    expect(r.map((x) => [x.lo, x.hi])).toEqual([
      [Number.NEGATIVE_INFINITY, 2],
      [2, 3],
      [3, 4],
      [4, Number.POSITIVE_INFINITY],
      [Number.NEGATIVE_INFINITY, 3],
      [3, Number.POSITIVE_INFINITY],
    ]);
    expect([...selectInRange([1, 2, 3, 4, 5], r[1])]).toEqual([1]);
  });
});

describe('filter agreement', () => {
  const reference = Array.from({ length: 40 }, (_, i) => i / 40);
  it('is 1 when our values equal the reference', () => {
    expect(filterAgreement(reference, reference)).toBe(1);
  });
  it('is below 1 when ranks agree but the scale does not', () => {
    const scaled = reference.map((v) => v * 3);
    expect(spearman(reference, scaled)).toBeCloseTo(1, 12);
    expect(filterAgreement(reference, scaled)).toBeLessThan(0.6);
  });
  it('is low for inverted values', () => {
    expect(
      filterAgreement(
        reference,
        reference.map((v) => 1 - v),
      ),
    ).toBeLessThan(0.3);
  });
  it('jaccard of two empty selections is 1, of disjoint ones 0', () => {
    expect(jaccard(new Set(), new Set())).toBe(1);
    expect(jaccard(new Set([1]), new Set([2]))).toBe(0);
    expect(jaccard(new Set([1, 2]), new Set([2, 3]))).toBeCloseTo(1 / 3, 12);
  });
});
