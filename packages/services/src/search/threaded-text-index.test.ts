import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type ChangeVersion, prepareSearch, type SearchRequest, searchSounds } from '@earshot/catalogue';
import {
  loadSyntheticCatalogue,
  openTestCatalogue,
  syntheticVocabulary,
  type TestCatalogue,
} from '@earshot/catalogue/testing';
import { createLogger } from '@earshot/common';
import { testService } from '@earshot/common/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ThreadedTextIndex } from './threaded-text-index.ts';

const postgresUrl = await testService('postgres');

const until = (done: () => boolean) =>
  vi.waitFor(() => expect(done()).toBe(true), { timeout: 60_000, interval: 20 });

/** A change version the test moves by hand, as the process's change feed moves on a notification. */
function handVersion(): ChangeVersion & { bump(): void } {
  let version = 1;
  return {
    current: () => Promise.resolve(version),
    onChange: () => {},
    beforeRequest: () => Promise.resolve(undefined),
    close: () => Promise.resolve(),
    bump: () => {
      version++;
    },
  };
}

/**
 * The posting index in two threads on the PostgreSQL server: their answers are the engine's exact
 * ones (pages, scores, counts, groups), a change committed before a search whose version moved is in
 * every thread's answer, the searches they do not take are left to PostgreSQL, and they start from
 * the snapshot the first wrote.
 */
describe.skipIf(!postgresUrl)('the text index in a worker thread', () => {
  let t: TestCatalogue;
  const snapshotDir = fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-threaded-index-'));
  const lines: string[] = [];
  const logger = createLogger('info', 'earshot', { write: (line: string) => lines.push(line) });
  /** The threads' "ready" lines that put lists of the other thread in place. */
  const adoptions = () =>
    lines.filter((l) => l.includes('search index: ready') && l.includes('"adopted":true'));
  const words = syntheticVocabulary(50_000).slice(0, 8);
  const requests: SearchRequest[] = [
    { query: words[0] },
    { query: `${words[0]} ${words[1]}` },
    { query: words[1], sort: 'downloads_desc', filter: 'duration:[0 TO 5]' },
    { query: words[2], groupByPack: true },
    { query: `"${words[0]} ${words[3]}"` },
    { query: words[4], filter: `tag:${words[5]}`, offset: 15 },
  ];

  beforeAll(async () => {
    t = await openTestCatalogue('postgres', { postgresUrl });
    await loadSyntheticCatalogue(t.catalogue.db, { sounds: 1200 });
  }, 120_000);
  afterAll(async () => {
    await t?.cleanup();
    fs.rmSync(snapshotDir, { recursive: true, force: true });
  });

  const exactly = (request: SearchRequest) =>
    searchSounds(t.catalogue, request, { popularityCapAbove: Number.POSITIVE_INFINITY });

  it('answers as the engine, follows changes under a moved version, and starts again from its snapshot', async () => {
    const changes = handVersion();
    const index = new ThreadedTextIndex(changes, {
      databaseUrl: t.location,
      snapshotDir,
      logger,
      threads: 2,
    }).start();
    try {
      await until(() => index.readyThreads === 2);
      // The second started from the lists the first shares, not a copy of its own.
      expect(adoptions()).toHaveLength(1);
      // Asked at once, the searches are shared between the threads (the one with fewer waiting).
      const answers = await Promise.all(requests.map((request) => index.search(prepareSearch(request))));
      for (const [i, request] of requests.entries()) {
        const mine = answers[i];
        const exact = await exactly(request);
        const label = JSON.stringify(request);
        expect(mine, label).toBeDefined();
        expect(mine?.count, label).toBe(exact.count);
        expect(mine?.ids, label).toEqual(exact.ids);
        expect(mine?.scores.map(Math.fround), label).toEqual(exact.scores.map(Math.fround));
        if (exact.packGroups) expect(mine?.packGroups, label).toEqual(exact.packGroups);
      }
      // An exclusion is PostgreSQL's to answer.
      expect(await index.search(prepareSearch({ query: `${words[0]} -${words[1]}` }))).toBeUndefined();

      const [{ id }] = (
        await sql<{
          id: number;
        }>`select id from sounds where moderation_state = 'ok' order by id limit 1`.execute(t.catalogue.db)
      ).rows;
      await sql`update sounds set tags = array['zzthreaded'] where id = ${id}`.execute(t.catalogue.db);
      changes.bump();
      // Every thread catches up to the moved version before it answers.
      for (const found of await Promise.all(
        [1, 2, 3, 4].map(() => index.search(prepareSearch({ query: 'zzthreaded' }))),
      )) {
        expect(found?.count).toBe(1);
        expect(found?.ids).toEqual([id]);
      }
    } finally {
      await index.close();
    }
    expect(await index.search(prepareSearch({ query: words[0] }))).toBeUndefined();
    expect(fs.existsSync(path.join(snapshotDir, 'search-index', 'posting-index.bin'))).toBe(true);

    // A second start reads the snapshot and catches up from search_changes (the edit above included).
    const version = handVersion();
    const again = new ThreadedTextIndex(version, {
      databaseUrl: t.location,
      snapshotDir,
      logger,
      threads: 2,
      rebuildAtLeast: 3,
      rebuildShare: 0,
    }).start();
    try {
      await until(() => again.readyThreads === 2);
      expect(adoptions()).toHaveLength(2);
      expect((await again.search(prepareSearch({ query: 'zzthreaded' })))?.count).toBe(1);
      const exact = await exactly(requests[1]);
      expect((await again.search(prepareSearch(requests[1])))?.ids).toEqual(exact.ids);

      // Past its overlay's bound the first thread rebuilds its lists; the second takes them.
      await sql`update sounds set tags = tags || array['zzrebuilt'] where id in
        (select id from sounds where moderation_state = 'ok' order by id limit 5)`.execute(t.catalogue.db);
      version.bump();
      expect((await again.search(prepareSearch({ query: 'zzrebuilt' })))?.count).toBe(5);
      await until(() => adoptions().length === 3);
      const after = await Promise.all([1, 2, 3, 4].map(() => again.search(prepareSearch(requests[1]))));
      const exactAfter = await exactly(requests[1]);
      for (const found of after) expect(found?.ids).toEqual(exactAfter.ids);
    } finally {
      await again.close();
    }
  }, 120_000);
});
