/**
 * When a window's counting starts over:
 * - `clock`: windows aligned to the clock, one counter per bucket (floor(now / windowMs)), each
 *   living two windows so it can be read as the previous one by the sliding-window arithmetic
 *   (sliding-window.ts). The API's per-credential limits: they slide like upstream's request log.
 * - `first-attempt`: one counter per key, started by its first count and ending a window later,
 *   whatever the clock reads. The sign-in and sign-up throttle: a refused person is told to wait
 *   the rest of the window their first attempt opened, not an estimate.
 */
export type WindowKind = 'clock' | 'first-attempt';

/** One window of a store: its counters' key prefix and its length. */
export interface WindowSpec {
  prefix: string;
  windowMs: number;
}

/** A window's counts for one request. */
export interface WindowCounts {
  /** The current bucket's count, this request included. */
  current: number;
  /** The bucket before it (a `first-attempt` window has none: 0). */
  previous: number;
  /** A `first-attempt` window's milliseconds left; a `clock` window's end is the clock's to tell. */
  endsInMs?: number;
}

/**
 * The counters behind every rate limit, the one place that touches their storage: per key and
 * window, the counts of the window's kind (WindowKind), in this process's memory (memory-buckets.ts,
 * memory-first-attempt.ts) or in Redis (redis-reservations.ts, redis-first-attempt.ts), picked by
 * window-store.ts. A request is counted in every window of the store at once; judging the counts
 * against limits is the caller's.
 *
 * `indices[w]` places the request in window `w`: a `clock` window's bucket index, or, for a
 * `first-attempt` window, the time now in milliseconds (the store decides whether it falls in the
 * key's current window or opens a new one).
 */
export interface WindowStore {
  /**
   * Adds one to every window's count; returns each window's counts, at once when they are at hand
   * (a promise only when there is something to wait for). `limits[w]` is window `w`'s limit, by
   * which a store that shares its counts sizes what it counts ahead.
   */
  add(
    key: string,
    indices: readonly number[],
    limits: readonly number[],
  ): WindowCounts[] | Promise<WindowCounts[]>;
  /** Takes the request counted as `counts` back out (a refused API request does not count, as upstream). */
  remove(key: string, indices: readonly number[], counts: readonly WindowCounts[]): undefined | Promise<void>;
  /** Forgets the key's counts of the windows `indices` falls in (a successful sign-in its failures). */
  reset(key: string, indices: readonly number[]): undefined | Promise<void>;
  /** Gives back what is counted ahead and stops any timer. */
  close?(): Promise<void>;
}
