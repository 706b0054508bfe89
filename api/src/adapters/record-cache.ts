import type { CatalogueReader, SoundRecord } from '../ports.ts';

/**
 * Keeps sound records for a few seconds so popular sounds (and the sounds of a popular search)
 * do not each cost a database read. Counters and visibility may lag by at most `ttlMs`.
 */
export function cachedSoundRecords(
  reader: CatalogueReader,
  ttlMs = 5_000,
  maxEntries = 50_000,
): CatalogueReader {
  const cache = new Map<number, { at: number; record: SoundRecord | null }>();
  return {
    ...reader,
    async soundsByIds(ids) {
      const now = Date.now();
      const missing: number[] = [];
      for (const id of ids) {
        const hit = cache.get(id);
        if (!hit || now - hit.at >= ttlMs) missing.push(id);
      }
      if (missing.length > 0) {
        const fresh = new Map((await reader.soundsByIds(missing)).map((r) => [r.id, r]));
        for (const id of missing) {
          if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as number);
          cache.delete(id); // re-insert so the oldest entries are evicted first
          cache.set(id, { at: now, record: fresh.get(id) ?? null });
        }
      }
      const out: SoundRecord[] = [];
      for (const id of ids) {
        const record = cache.get(id)?.record;
        if (record) out.push(record);
      }
      return out;
    },
  };
}
