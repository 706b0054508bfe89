import type { ChangeVersion } from '@earshot/catalogue';
import { versionInScope } from '../framework/http/request-version.ts';

/**
 * The catalogue change version a cached answer may be served for: the one already waited for in
 * this scope, else a fresh one from the feed. Undefined (no feed, or not listening) = do not cache.
 */
export async function changeVersionNow(changes: ChangeVersion | undefined): Promise<number | undefined> {
  return versionInScope.getStore() ?? changes?.current();
}

/**
 * `changes` as a reader below the page cache sees it (the process's text index, which catches up
 * with the catalogue before it answers): inside a computation that already waited for the
 * version (versionInScope), that version, without another round trip on the feed.
 */
export function scopedChangeVersion(changes: ChangeVersion): ChangeVersion {
  return {
    current: () => changeVersionNow(changes),
    onChange: (listener) => changes.onChange(listener),
    beforeRequest: () => changes.beforeRequest(),
    close: () => changes.close(),
  };
}

/**
 * Answers by key, each valid for one version of what it was computed from (the catalogue's change
 * version, the similarity state's generation…). Identical concurrent requests share one
 * computation: the promise is stored before it settles, so the second caller waits for the first
 * one's work instead of starting its own. Failures are not remembered. Least recently used entries
 * go first when there are `maxEntries`, or when the answers' total `weigh` passes `maxWeight`
 * (rendered pages: their length, so 150-sound pages cannot fill the memory).
 */
export class VersionedCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private weight = 0;

  constructor(
    private readonly maxEntries = 2_000,
    private readonly weigh: (value: T) => number = () => 0,
    private readonly maxWeight = Number.POSITIVE_INFINITY,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string, version: string, compute: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit !== undefined && hit.version === version) {
      // Re-inserted so the map's order is least recently used first.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.value;
    }
    const entry: Entry<T> = { version, value: compute(), done: false, settled: undefined, weight: 0 };
    if (hit !== undefined) this.drop(key, hit);
    if (this.entries.size >= this.maxEntries) this.evictOldest();
    this.entries.set(key, entry);
    entry.value.then(
      (value) => {
        entry.done = true;
        entry.settled = value;
        if (this.entries.get(key) !== entry) return;
        entry.weight = this.weigh(value);
        this.weight += entry.weight;
        while (this.weight > this.maxWeight && this.entries.size > 1) this.evictOldest();
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    return entry.value;
  }

  /** The answer for this version if it is already computed (no waiting, no computing). */
  peek(key: string, version: string): T | undefined {
    const hit = this.entries.get(key);
    return hit?.done && hit.version === version ? hit.settled : undefined;
  }

  clear(): void {
    this.entries.clear();
    this.weight = 0;
  }

  private evictOldest(): void {
    const key = this.entries.keys().next().value as string;
    this.drop(key, this.entries.get(key) as Entry<T>);
  }

  private drop(key: string, entry: Entry<T>): void {
    this.entries.delete(key);
    this.weight -= entry.weight;
  }
}

interface Entry<T> {
  version: string;
  value: Promise<T>;
  done: boolean;
  settled: T | undefined;
  /** Counted once the answer is in (0 before). */
  weight: number;
}
