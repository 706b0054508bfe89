import { testService } from '@earshot/common/testing';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { testBackends, useSearchCatalogue } from '../testing/index.ts';
import { loadSyntheticCatalogue } from '../testing/synthetic-catalogue.ts';
import { suggestSoundNames } from './suggest.ts';

const postgresUrl = await testService('postgres');

/**
 * Name completions read two bounded windows (the start of the prefix's name range, the most
 * downloaded sounds) instead of every sound with the prefix. Held against the exact answer computed
 * here from every public sound's name and downloads, with windows small enough that every path is
 * taken: a whole range read, a common prefix answered from the most downloaded, and the best of both.
 */
describe.each(testBackends(postgresUrl))('sound name completions on %s', (backend) => {
  const t = useSearchCatalogue(
    backend,
    postgresUrl,
    (db) => loadSyntheticCatalogue(db, { sounds: 600 }),
    120_000,
  );
  const reads = { range: 40, popular: 120 };
  const limit = 5;

  async function everyName(): Promise<{ name: string; downloads: number; id: number }[]> {
    const { rows } = await sql<{ name: string; downloads: number; id: number }>`
      select name, num_downloads as downloads, id from sound_search`.execute(t.catalogue.db);
    return rows.map((r) => ({ ...r, downloads: Number(r.downloads), id: Number(r.id) }));
  }

  /** The first `limit` names (once each, lower-cased) of the sounds with the prefix, by downloads then id. */
  function exact(all: { name: string; downloads: number; id: number }[], prefix: string): string[] {
    const byDownloads = all
      .filter((r) => r.name.toLowerCase().startsWith(prefix))
      .sort((a, b) => b.downloads - a.downloads || a.id - b.id);
    return [...new Set(byDownloads.slice(0, limit * 2).map((r) => r.name.toLowerCase()))].slice(0, limit);
  }

  it('ranks exactly when the range is read whole or the most downloaded hold enough, else stays within the prefix in downloads order', async () => {
    const all = await everyName();
    const popular = new Set(
      [...all]
        .sort((a, b) => b.downloads - a.downloads || a.id - b.id)
        .slice(0, reads.popular)
        .map((r) => r.id),
    );
    const prefixes = [...new Set(all.flatMap((r) => [1, 2, 3].map((n) => r.name.toLowerCase().slice(0, n))))];
    const paths = { range: 0, popular: 0, mixed: 0 };
    for (const prefix of prefixes) {
      const got = await suggestSoundNames(t.catalogue.db, prefix, limit, reads);
      const names = got.map((g) => g.name.toLowerCase());
      const withPrefix = all.filter((r) => r.name.toLowerCase().startsWith(prefix));
      const fromPopular = withPrefix.filter((r) => popular.has(r.id)).length;
      for (const n of names) expect(n.startsWith(prefix), prefix).toBe(true);
      expect(
        got.map((g) => g.numDownloads),
        prefix,
      ).toEqual([...got.map((g) => g.numDownloads)].sort((a, b) => b - a));
      if (withPrefix.length < reads.range || fromPopular >= limit * 2) {
        expect(names, prefix).toEqual(exact(all, prefix));
        if (withPrefix.length < reads.range) paths.range++;
        else paths.popular++;
      } else {
        expect(names.length, prefix).toBeGreaterThan(0);
        paths.mixed++;
      }
    }
    // Every path was taken, so each was checked.
    expect(paths.range).toBeGreaterThan(0);
    expect(paths.popular).toBeGreaterThan(0);
    expect(paths.mixed).toBeGreaterThan(0);
  });
});
