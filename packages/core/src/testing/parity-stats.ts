/**
 * Statistics that say whether a descriptor means the same as the reference extractor's (issue 17): rank
 * agreement (Spearman ρ) and filter agreement — whether a range filter written against the reference's
 * values selects the same recordings when applied to ours. Pure functions, no I/O.
 */

/** Fractional ranks (ties share their mean rank), 0-based. */
export function ranks(values: readonly number[]): number[] {
  const order = values.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0]);
  const out = new Array<number>(values.length);
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && order[j + 1][0] === order[i][0]) j++;
    for (let k = i; k <= j; k++) out[order[k][1]] = (i + j) / 2;
    i = j + 1;
  }
  return out;
}

/** Spearman's rank correlation: Pearson's r of the ranks. 0 when either side is constant. */
export function spearman(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) throw new Error(`spearman: ${a.length} values against ${b.length}`);
  const ra = ranks(a);
  const rb = ranks(b);
  const n = a.length;
  const ma = ra.reduce((x, y) => x + y, 0) / n;
  const mb = rb.reduce((x, y) => x + y, 0) / n;
  let num = 0;
  let da = 0;
  let db = 0;
  for (let i = 0; i < n; i++) {
    num += (ra[i] - ma) * (rb[i] - mb);
    da += (ra[i] - ma) ** 2;
    db += (rb[i] - mb) ** 2;
  }
  return da > 0 && db > 0 ? num / Math.sqrt(da * db) : 0;
}

/** The q-quantile (0..1) with linear interpolation between order statistics. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((x, y) => x - y);
  const at = q * (sorted.length - 1);
  const lo = Math.floor(at);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}

/** A filter range [lo, hi) — open-ended where the bound is infinite. */
export interface FilterRange {
  lo: number;
  hi: number;
}

/**
 * The six ranges a user might write from the reference values: the four quarters between the reference's
 * quartiles and the two halves. The outer bounds are open (−∞, +∞): a filter for "the low quarter" is
 * written as "below q1", so a value of ours outside the reference's span is still selected by it.
 */
export function quartileRanges(reference: readonly number[]): FilterRange[] {
  const [q1, q2, q3] = [0.25, 0.5, 0.75].map((q) => quantile(reference, q));
  return [
    { lo: Number.NEGATIVE_INFINITY, hi: q1 },
    { lo: q1, hi: q2 },
    { lo: q2, hi: q3 },
    { lo: q3, hi: Number.POSITIVE_INFINITY },
    { lo: Number.NEGATIVE_INFINITY, hi: q2 },
    { lo: q2, hi: Number.POSITIVE_INFINITY },
  ];
}

/** The indices of the values the range selects. */
export function selectInRange(values: readonly number[], range: FilterRange): Set<number> {
  const out = new Set<number>();
  values.forEach((v, i) => {
    if (v >= range.lo && v < range.hi) out.add(i);
  });
  return out;
}

/** |A ∩ B| / |A ∪ B|; two empty selections agree (1). */
export function jaccard(a: ReadonlySet<number>, b: ReadonlySet<number>): number {
  let both = 0;
  for (const x of a) if (b.has(x)) both++;
  const union = a.size + b.size - both;
  return union === 0 ? 1 : both / union;
}

/**
 * Filter agreement: the mean, over the reference's quartile ranges, of the Jaccard overlap between the
 * recordings the range selects by the reference's values and by ours (same range, same numbers: a
 * descriptor on another scale fails here even when its ranks agree).
 */
export function filterAgreement(reference: readonly number[], ours: readonly number[]): number {
  if (reference.length !== ours.length)
    throw new Error(`filterAgreement: ${reference.length} values against ${ours.length}`);
  const ranges = quartileRanges(reference);
  const overlaps = ranges.map((r) => jaccard(selectInRange(reference, r), selectInRange(ours, r)));
  return overlaps.reduce((x, y) => x + y, 0) / overlaps.length;
}

export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}
