import type { BucketStore, WindowCounts } from './window-store.ts';

/**
 * The counters in this process's memory: one map entry per key and bucket, as in Redis, so a clock
 * that moves backwards (tests, a corrected wall clock) still reads the right buckets. Synchronous
 * work behind the store's promise: no timer per key, no allocation beyond the entry itself. When a
 * window reaches a new bucket, its buckets older than the previous one are swept (once per bucket).
 */
export function memoryBuckets(windows: number): BucketStore {
  const maps = Array.from({ length: windows }, () => new Map<string, { index: number; count: number }>());
  const latest = new Array<number>(windows).fill(Number.NEGATIVE_INFINITY);
  function sweep(w: number, index: number): void {
    latest[w] = index;
    for (const [k, entry] of maps[w]) if (entry.index < index - 1) maps[w].delete(k);
  }
  function add(key: string, indices: readonly number[]): WindowCounts[] {
    return indices.map((index, w) => {
      if (index > latest[w]) sweep(w, index);
      const map = maps[w];
      const name = `${key}:${index}`;
      const entry = map.get(name);
      if (entry) entry.count++;
      else map.set(name, { index, count: 1 });
      return { current: entry ? entry.count : 1, previous: map.get(`${key}:${index - 1}`)?.count ?? 0 };
    });
  }
  function remove(key: string, indices: readonly number[]): void {
    indices.forEach((index, w) => {
      const entry = maps[w].get(`${key}:${index}`);
      if (entry) entry.count--;
    });
  }
  return {
    add: async (key, indices) => add(key, indices),
    remove: async (key, indices) => remove(key, indices),
  };
}
