/** A window's counts for one request: its current bucket (this request included) and the one before. */
export interface WindowCounts {
  current: number;
  previous: number;
}

/**
 * The counters behind the rate limits, the one place that touches their storage (the two stores,
 * memory-buckets.ts and redis-reservations.ts, and window-store.ts, which picks one): per key, one
 * counter per clock-aligned bucket of each window, each living two windows (long enough to be read
 * as the previous one). A request is counted in every window at once; the sliding-window
 * arithmetic is the caller's (sliding-window.ts).
 */
export interface BucketStore {
  /**
   * Adds one to bucket `indices[w]` of every window `w`; returns each window's counts, at once when
   * they are at hand (a promise only when there is something to wait for). `limits[w]` is window
   * `w`'s limit, by which a store that shares its counts sizes what it counts ahead.
   */
  add(
    key: string,
    indices: readonly number[],
    limits: readonly number[],
  ): WindowCounts[] | Promise<WindowCounts[]>;
  /** Takes the request counted as `counts` back out (a refused request does not count, as upstream). */
  remove(key: string, indices: readonly number[], counts: readonly WindowCounts[]): undefined | Promise<void>;
  /** Gives back what is counted ahead and stops any timer. */
  close?(): Promise<void>;
}
