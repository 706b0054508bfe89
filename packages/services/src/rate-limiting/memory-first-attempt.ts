import type { WindowCounts, WindowSpec, WindowStore } from './store.ts';

/** A key's window: its count so far and when it ends. */
interface Opened {
  count: number;
  endsAt: number;
}

/**
 * The `first-attempt` windows' counters in this process's memory: per window, one entry per key
 * until its window ends. `indices[w]` is the time now. Ended entries are swept once per window
 * length rather than by a timer per key.
 */
export function memoryFirstAttempt(windows: readonly WindowSpec[]): WindowStore {
  const maps = windows.map(() => new Map<string, Opened>());
  const nextSweep = windows.map(() => Number.NEGATIVE_INFINITY);
  function sweep(w: number, now: number): void {
    nextSweep[w] = now + windows[w].windowMs;
    for (const [key, opened] of maps[w]) if (opened.endsAt <= now) maps[w].delete(key);
  }
  function open(w: number, key: string, now: number): Opened | undefined {
    const opened = maps[w].get(key);
    return opened && opened.endsAt > now ? opened : undefined;
  }
  function add(key: string, indices: readonly number[]): WindowCounts[] {
    return windows.map((window, w) => {
      const now = indices[w];
      if (now >= nextSweep[w]) sweep(w, now);
      let opened = open(w, key, now);
      if (!opened) {
        opened = { count: 0, endsAt: now + window.windowMs };
        maps[w].set(key, opened);
      }
      opened.count++;
      return { current: opened.count, previous: 0, endsInMs: opened.endsAt - now };
    });
  }
  function remove(key: string, indices: readonly number[]): undefined {
    for (let w = 0; w < windows.length; w++) {
      const opened = open(w, key, indices[w]);
      if (opened) opened.count--;
    }
    return undefined;
  }
  function reset(key: string): undefined {
    for (const map of maps) map.delete(key);
    return undefined;
  }
  return { add, remove, reset };
}
