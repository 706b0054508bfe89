/**
 * Sliding-window arithmetic over two clock-aligned buckets (the "sliding window counter"): the
 * requests of the last window are estimated as all of the current bucket plus the part of the
 * previous bucket the window still overlaps. It slides like upstream's request log (DRF keeps 60 s /
 * 86 400 s of timestamps) at the cost of two counters per window instead of one timestamp per
 * request, and it is exact while the previous bucket is empty (the 61st request in a fresh minute).
 */
export interface BucketCounts {
  /** Requests counted in the current bucket. */
  current: number;
  /** Requests counted in the bucket before it. */
  previous: number;
  /** How far into the current bucket `now` is, 0 (start) to 1 (end). */
  elapsed: number;
}

/** The estimated requests of the window that ends now. */
export function estimate(counts: BucketCounts): number {
  return counts.previous * (1 - counts.elapsed) + counts.current;
}

/** Milliseconds until one more request fits under `limit`, if no other request comes meanwhile. */
export function msUntilAllowed(counts: BucketCounts, limit: number, windowMs: number): number {
  const { current, previous, elapsed } = counts;
  if (estimate(counts) + 1 <= limit) return 0;
  if (current + 1 <= limit && previous > 0) {
    // Still in this bucket, once enough of the previous one has slid out.
    const needed = 1 - (limit - 1 - current) / previous;
    if (needed <= 1) return (needed - elapsed) * windowMs;
  }
  // In the next bucket this one is the previous one: wait until enough of it has slid out.
  const needed = current > 0 ? Math.max(0, 1 - (limit - 1) / current) : 0;
  return (1 - elapsed + needed) * windowMs;
}

/** Milliseconds until every request counted so far has left the window (the whole quota is back). */
export function msUntilClear(counts: BucketCounts, windowMs: number): number {
  if (counts.current > 0) return (2 - counts.elapsed) * windowMs;
  if (counts.previous > 0) return (1 - counts.elapsed) * windowMs;
  return 0;
}
