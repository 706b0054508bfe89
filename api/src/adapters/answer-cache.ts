/**
 * Answers by key, each valid for one version of what it was computed from (the catalogue's change
 * version, the similarity state's generation…). Identical concurrent requests share one
 * computation: the promise is stored before it settles, so the second caller waits for the first
 * one's work instead of starting its own. Failures are not remembered. Least recently used entries
 * go first when full.
 */
export class VersionedCache<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(private readonly maxEntries = 2_000) {}

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
    const entry: Entry<T> = { version, value: compute(), done: false, settled: undefined };
    entry.value.then(
      (value) => {
        entry.done = true;
        entry.settled = value;
      },
      () => {},
    );
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, entry);
    entry.value.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return entry.value;
  }

  /** The answer for this version if it is already computed (no waiting, no computing). */
  peek(key: string, version: string): T | undefined {
    const hit = this.entries.get(key);
    return hit?.done && hit.version === version ? hit.settled : undefined;
  }

  clear(): void {
    this.entries.clear();
  }
}

interface Entry<T> {
  version: string;
  value: Promise<T>;
  done: boolean;
  settled: T | undefined;
}
