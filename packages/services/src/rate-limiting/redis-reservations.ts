import type { Redis } from 'ioredis';
import { callBatcher } from './call-batcher.ts';
import { type ReserveEntry, rateScripts } from './redis-scripts.ts';
import type { WindowCounts, WindowSpec, WindowStore } from './store.ts';

/** A reservation idle this long gives its unused slots back (and the timer sweeps this often). */
export const IDLE_RELEASE_MS = 10_000;

/**
 * Slots of one bucket this process has taken from Redis and not used yet. A slot is a position in
 * the bucket's count across every process: slot `n` is the n-th request the bucket holds. The
 * request that uses slot `n` is judged with the count `n`, which is the exact count when one
 * process serves the key, and counts every slot another process has taken (used or not) otherwise.
 */
interface Reservation {
  index: number;
  /** The next unused slot, up to `last`. */
  next: number;
  last: number;
  /** Slots handed back by refused requests, used before `next`. */
  spare: number[];
  /** The previous bucket's count when the slots were taken. */
  previous: number;
  usedAt: number;
}

const unused = (r: Reservation) => r.spare.length + r.last - r.next + 1;

/**
 * How many slots to take of a bucket whose count (with the previous bucket's, a bound on its share
 * of the window) was last seen at `seen`: a quarter of what is left, at least one (15 of a fresh
 * 60 a minute, then 11, 8, 6 …). Few round trips far from the limit, and, with several processes,
 * few slots held unused by the others (the limit's early arrival) near it, where it matters.
 */
export function slotsToTake(limit: number, seen: number): number {
  return Math.max(1, Math.floor((limit - seen) / 4));
}

/**
 * The `clock` windows' counters in Redis, counted in reservations: a process takes a few slots of a key's bucket at
 * once (slotsToTake) and hands them to its requests
 * from memory, so most requests cost no round trip and no Redis work at all. Reserving goes in
 * batches (one script call for the requests arriving while one is in flight, call-batcher.ts).
 *
 * What it costs in accuracy: nothing with one process — every request is judged with its exact
 * count. With several, a request is judged with its slot's position, which counts the slots other
 * processes hold unused: a limit is never exceeded, and may be reached early by the slots the
 * other processes hold (a few each near the limit, see slotsToTake), which they give back when
 * they move to the next bucket or after IDLE_RELEASE_MS without a request of the key.
 */
export function redisReservations(
  redis: Redis,
  windows: readonly WindowSpec[],
): Required<WindowStore> & { release(idleMs: number): Promise<void> } {
  const scripts = rateScripts(redis);
  const reserve = callBatcher((entries: ReserveEntry[]) => scripts.reserve(entries));
  const held = windows.map(() => new Map<string, Reservation>());
  const refilling = new Map<string, Promise<void>>();
  const bucketKey = (w: number, key: string, index: number) => `${windows[w].prefix}:${key}:${index}`;

  /**
   * Each window's reservation for a request of bucket `indices[w]`, or the windows whose
   * reservation cannot serve it. A clock stepping back into an older bucket is counted in the newer
   * one (stricter).
   */
  function lookUp(key: string, indices: readonly number[]): Reservation[] | number[] {
    const found: Reservation[] = [];
    const starved: number[] = [];
    for (let w = 0; w < indices.length; w++) {
      const r = held[w].get(key);
      if (!r || r.index < indices[w] || unused(r) === 0) starved.push(w);
      else found.push(r);
    }
    return starved.length > 0 ? starved : found;
  }

  function use(found: Reservation[]): WindowCounts[] {
    const out = new Array<WindowCounts>(found.length);
    const now = performance.now();
    for (let w = 0; w < found.length; w++) {
      const r = found[w];
      const slot = r.spare.length > 0 ? (r.spare.pop() as number) : r.next++;
      r.usedAt = now;
      out[w] = { current: slot, previous: r.previous };
    }
    return out;
  }

  function refill(
    key: string,
    indices: readonly number[],
    limits: readonly number[],
    ws: number[],
  ): Promise<void> {
    const takes: number[] = [];
    const entries = ws.map((w): ReserveEntry => {
      const r = held[w].get(key);
      const take = slotsToTake(limits[w], r && r.index === indices[w] ? r.last + r.previous : 0);
      takes.push(take);
      // Moving on to a new bucket: the old one's unused slots go back in the same call.
      const giveBack = r && r.index < indices[w] ? unused(r) : 0;
      return {
        base: `${windows[w].prefix}:${key}`,
        bucket: indices[w],
        take,
        back: r ? r.index : 0,
        give: giveBack,
        // A bucket must outlive its window by another window to be read as the previous one.
        ttlMs: 2 * windows[w].windowMs,
      };
    });
    const done = reserve(entries).then((answers) => {
      answers.forEach((answer, i) => {
        const w = ws[i];
        const old = held[w].get(key);
        held[w].set(key, {
          index: indices[w],
          next: answer.current - takes[i] + 1,
          last: answer.current,
          spare: old && old.index === indices[w] ? old.spare : [],
          previous: answer.previous,
          usedAt: performance.now(),
        });
      });
    });
    const settled = done.finally(() => refilling.delete(key));
    refilling.set(key, settled);
    return settled;
  }

  function add(
    key: string,
    indices: readonly number[],
    limits: readonly number[],
  ): WindowCounts[] | Promise<WindowCounts[]> {
    const found = lookUp(key, indices);
    if (typeof found[0] !== 'number') return use(found as Reservation[]);
    // One reservation at a time per key: the requests that find it empty wait for the same one.
    const waiting = refilling.get(key) ?? refill(key, indices, limits, found as number[]);
    return waiting.then(() => add(key, indices, limits));
  }

  /** A refused request's slots go back to this process's reservations (it does not count). */
  function remove(key: string, indices: readonly number[], counts: readonly WindowCounts[]): undefined {
    for (let w = 0; w < indices.length; w++) {
      const r = held[w].get(key);
      if (!r || r.index < indices[w]) continue;
      if (counts[w].current === r.next - 1) r.next--;
      else r.spare.push(counts[w].current);
    }
    return undefined;
  }

  /**
   * Deletes the key's current and previous buckets, and this process's reservations of them. Other
   * processes keep handing out the slots they hold until they move on: the count comes back to
   * exact with the next bucket.
   */
  async function reset(key: string, indices: readonly number[]): Promise<void> {
    await refilling.get(key)?.catch(() => {});
    const buckets: string[] = [];
    for (let w = 0; w < indices.length; w++) {
      held[w].delete(key);
      buckets.push(bucketKey(w, key, indices[w]), bucketKey(w, key, indices[w] - 1));
    }
    await redis.del(...buckets);
  }

  /** Gives back the unused slots of reservations idle for `idleMs` and forgets them. */
  async function release(idleMs: number): Promise<void> {
    const cutoff = performance.now() - idleMs;
    const buckets: { key: string; count: number }[] = [];
    held.forEach((map, w) => {
      for (const [key, r] of map) {
        if (r.usedAt > cutoff || refilling.has(key)) continue;
        map.delete(key);
        const n = unused(r);
        if (n > 0) buckets.push({ key: bucketKey(w, key, r.index), count: n });
      }
    });
    await scripts.release(buckets);
  }

  const sweep = setInterval(() => {
    release(IDLE_RELEASE_MS).catch(() => {
      // Redis away: the slots expire with their bucket instead.
    });
  }, IDLE_RELEASE_MS);
  sweep.unref();

  return {
    add,
    remove,
    reset,
    release,
    async close() {
      clearInterval(sweep);
      await Promise.allSettled([...refilling.values()]);
      await release(0);
    },
  };
}
