import type { ChangeVersion, SoundRecord } from '@earshot/catalogue';
import type { CatalogueReader } from '../application/ports.ts';
import { pastHalfLife, SharedReads } from '../caches/shared-reads.ts';

/**
 * Keeps sound records for a few seconds so popular sounds (and the sounds of a popular search)
 * do not each cost a database read. Counters and visibility may lag by at most `ttlMs`; with a
 * change feed, every catalogue change empties the cache at once, and a read that was under way
 * when the change came is not kept (it may hold the old rows).
 *
 * A hot entry past half its life is re-read in the background while it keeps being served, and
 * requests for a record already being read wait for that read: otherwise every expiry sends each
 * concurrent request for a popular sound to the database at once, and those requests are the
 * slow tail of the other traffic (issue 21).
 */
export function cachedSoundRecords(
  reader: CatalogueReader,
  ttlMs = 5_000,
  maxEntries = 50_000,
  changes?: ChangeVersion,
): CatalogueReader {
  const cache = new Map<number, { at: number; record: SoundRecord | null }>();
  const reads = new SharedReads<number, SoundRecord | null>();
  changes?.onChange(() => {
    reads.changed();
    cache.clear();
  });

  /** One database read for `ids`, shared per id by the requests that need them meanwhile. */
  const read = (ids: number[]): Array<Promise<SoundRecord | null>> => {
    const startedAt = Date.now();
    const rows = reader.soundsByIds(ids).then((list) => new Map(list.map((r) => [r.id, r])));
    return ids.map((id) =>
      reads.share(
        id,
        rows.then((fresh) => fresh.get(id) ?? null),
        (record) => {
          if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as number);
          cache.delete(id); // re-insert so the oldest entries are evicted first
          cache.set(id, { at: startedAt, record });
        },
      ),
    );
  };

  return {
    ...reader,
    async soundsByIds(ids, columns) {
      const now = Date.now();
      // Taken before any await: a change may empty the cache meanwhile.
      const found = new Map<number, SoundRecord | null>();
      const waits: Array<Promise<void>> = [];
      const missing: number[] = [];
      const ageing: number[] = [];
      for (const id of ids) {
        const hit = cache.get(id);
        const pending = reads.pending(id);
        if (hit && now - hit.at < ttlMs) {
          found.set(id, hit.record);
          if (pastHalfLife(hit.at, now, ttlMs) && !pending) ageing.push(id);
        } else if (pending) {
          waits.push(pending.then((record) => void found.set(id, record)));
        } else {
          missing.push(id);
        }
      }
      // A failed refresh is not this request's error: the entry expires and is read again then.
      if (ageing.length > 0) for (const refresh of read(ageing)) refresh.catch(() => undefined);
      if (missing.length > 0 && columns) {
        // Only a few columns asked (a page of a list): read as asked, and not kept (the cache
        // holds whole rows). Reading and keeping whole rows for every page of a distinct search
        // cost more of the process than the rest of its page, most of it in garbage collection.
        const fresh = reader.soundsByIds(missing, columns);
        waits.push(fresh.then((rows) => rows.forEach((row) => void found.set(row.id, row))));
      } else if (missing.length > 0) {
        const fresh = read(missing);
        for (const [i, id] of missing.entries())
          waits.push(fresh[i].then((record) => void found.set(id, record)));
      }
      await Promise.all(waits);
      const out: SoundRecord[] = [];
      for (const id of ids) {
        const record = found.get(id);
        if (record) out.push(record);
      }
      return out;
    },
  };
}
