/**
 * The database reads a cache has under way, one per key, shared by every request that needs that
 * key meanwhile; and the catalogue-change guard: a read that overlapped a change may hold the old
 * row, so it answers the requests that waited for it but is not kept.
 */
export class SharedReads<K, V> {
  readonly #reading = new Map<K, Promise<V>>();
  #epoch = 0;

  /** A catalogue change: the reads under way are no longer shared, and none of them is kept. */
  changed(): void {
    this.#epoch++;
    this.#reading.clear();
  }

  /** The read of `key` under way, if one is. */
  pending(key: K): Promise<V> | undefined {
    return this.#reading.get(key);
  }

  /** Shares `read` as the read of `key`; `keep` gets its value unless a change came meanwhile. */
  share(key: K, read: Promise<V>, keep: (value: V) => void): Promise<V> {
    const startedIn = this.#epoch;
    this.#reading.set(key, read);
    const done = () => {
      if (this.#reading.get(key) === read) this.#reading.delete(key);
    };
    read.then((value) => {
      done();
      if (startedIn === this.#epoch) keep(value);
    }, done);
    return read;
  }
}

/**
 * An entry past half its life is read again in the background while it is still served: no
 * request then waits on its expiry, which would send every concurrent request for a hot key to the
 * database at once (issue 21).
 */
export function pastHalfLife(at: number, now: number, ttlMs: number): boolean {
  return now - at >= ttlMs / 2;
}
