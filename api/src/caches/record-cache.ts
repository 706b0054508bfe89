import type { ChangeVersion, SoundRecord } from '@earshot/catalogue';
import type { CatalogueReader } from '../ports.ts';

/**
 * Keeps sound records for a few seconds so popular sounds (and the sounds of a popular search)
 * do not each cost a database read. Counters and visibility may lag by at most `ttlMs`; with a
 * change feed, every catalogue change empties the cache at once, and a read that was under way
 * when the change came is not kept (it may hold the old rows).
 */
export function cachedSoundRecords(
  reader: CatalogueReader,
  ttlMs = 5_000,
  maxEntries = 50_000,
  changes?: ChangeVersion,
): CatalogueReader {
  const cache = new Map<number, { at: number; record: SoundRecord | null }>();
  let epoch = 0;
  changes?.onChange(() => {
    epoch++;
    cache.clear();
  });
  return {
    ...reader,
    async soundsByIds(ids) {
      const now = Date.now();
      // Taken before any await: a change may empty the cache meanwhile.
      const found = new Map<number, SoundRecord | null>();
      const missing: number[] = [];
      for (const id of ids) {
        const hit = cache.get(id);
        if (!hit || now - hit.at >= ttlMs) missing.push(id);
        else found.set(id, hit.record);
      }
      if (missing.length > 0) {
        const startedIn = epoch;
        const fresh = new Map((await reader.soundsByIds(missing)).map((r) => [r.id, r]));
        for (const id of missing) {
          const record = fresh.get(id) ?? null;
          found.set(id, record);
          if (startedIn !== epoch) continue;
          if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as number);
          cache.delete(id); // re-insert so the oldest entries are evicted first
          cache.set(id, { at: now, record });
        }
      }
      const out: SoundRecord[] = [];
      for (const id of ids) {
        const record = found.get(id);
        if (record) out.push(record);
      }
      return out;
    },
  };
}
