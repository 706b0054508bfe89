import type { WindowCounts, WindowStore } from './store.ts';

/** A key's two latest buckets in one window. */
interface Slots {
  index: number;
  count: number;
  /** The bucket before `index`'s count (0 when that bucket saw no request). */
  previous: number;
}

/**
 * The `clock` windows' counters in this process's memory: per window, one entry per key holding its latest bucket
 * and the one before, which is all the sliding window reads. Synchronous (no promise to await: on
 * the hot path each async layer cost more than the counting itself), one map lookup per window with
 * the key string the caller already built, no timer per key. A clock that steps back into the
 * previous bucket counts there; further back, the bucket starts afresh. When a window reaches a new
 * bucket, keys idle for two buckets are swept (once per bucket).
 */
export function memoryBuckets(windows: number): WindowStore {
  const maps = Array.from({ length: windows }, () => new Map<string, Slots>());
  const latest = new Array<number>(windows).fill(Number.NEGATIVE_INFINITY);
  function sweep(w: number, index: number): void {
    latest[w] = index;
    for (const [k, slots] of maps[w]) if (slots.index < index - 1) maps[w].delete(k);
  }
  function count(map: Map<string, Slots>, key: string, index: number): WindowCounts {
    const slots = map.get(key);
    if (!slots) {
      map.set(key, { index, count: 1, previous: 0 });
      return { current: 1, previous: 0 };
    }
    if (index === slots.index) return { current: ++slots.count, previous: slots.previous };
    if (index > slots.index) {
      slots.previous = index === slots.index + 1 ? slots.count : 0;
      slots.index = index;
      slots.count = 1;
      return { current: 1, previous: slots.previous };
    }
    if (index === slots.index - 1) return { current: ++slots.previous, previous: 0 };
    return { current: 1, previous: 0 };
  }
  function add(key: string, indices: readonly number[]): WindowCounts[] {
    const out = new Array<WindowCounts>(indices.length);
    for (let w = 0; w < indices.length; w++) {
      if (indices[w] > latest[w]) sweep(w, indices[w]);
      out[w] = count(maps[w], key, indices[w]);
    }
    return out;
  }
  function remove(key: string, indices: readonly number[]): undefined {
    for (let w = 0; w < indices.length; w++) {
      const slots = maps[w].get(key);
      if (slots?.index === indices[w]) slots.count--;
      else if (slots?.index === indices[w] + 1) slots.previous--;
    }
    return undefined;
  }
  function reset(key: string): undefined {
    for (const map of maps) map.delete(key);
    return undefined;
  }
  return { add, remove, reset };
}
