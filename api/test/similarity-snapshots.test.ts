import fs from 'node:fs/promises';
import path from 'node:path';
import {
  type Catalogue,
  deleteSound,
  getSimilarityVector,
  openCatalogue,
  setSimilarityVector,
} from '@earshot/catalogue';
import { createTestDatabase } from '@earshot/catalogue/testing';
import { createLogger, loadConfig } from '@earshot/common';
import { testService } from '@earshot/common/testing';
import { DEFAULT_SIMILARITY_SPACE } from '@earshot/core';
import { moderate, SimilarityLoading, SimilarityState, similaritySnapshotDir } from '@earshot/services';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAppDeps, type WiredAppDeps } from '../src/build-deps.ts';
import { startTestServer, type TestServer } from './support/server.ts';

/**
 * The API's similarity state starts from the snapshot in the data folder and catches up from the
 * catalogue (the source of truth): vectors changed, sounds made public and sounds deleted after
 * the snapshot are all reflected; a corrupt snapshot falls back to a rebuild. On the embedded
 * database and on the PostgreSQL server.
 */

const postgresUrl = await testService('postgres');
const BACKENDS = postgresUrl ? (['embedded', 'postgres'] as const) : (['embedded'] as const);
const SPACE = DEFAULT_SIMILARITY_SPACE;

type Json = Record<string, any>;

describe.each(BACKENDS)('%s: similarity snapshots', (backend) => {
  let s: TestServer;
  let database: { url: string; drop(): Promise<void> } | undefined;
  const lines: string[] = [];
  const logger = createLogger('info', 'earshot', { write: (line: string) => lines.push(line) });

  beforeAll(async () => {
    if (backend === 'postgres') database = await createTestDatabase(postgresUrl as string);
    s = await startTestServer(database ? { DATABASE_URL: database.url } : {});
  }, 180_000);
  afterAll(async () => {
    await s?.stop();
    await database?.drop();
  });

  async function similarIds(id: number): Promise<number[]> {
    const res = await fetch(`${s.origin}/apiv2/sounds/${id}/similar/?fields=id`, {
      headers: { Authorization: `Token ${s.seeded.apiKey}` },
    });
    const body = (await res.json()) as Json;
    expect(res.status, JSON.stringify(body)).toBe(200);
    return (body.results as Json[]).map((r) => r.id as number);
  }

  const openState = () =>
    new SimilarityState(s.catalogue.db, logger, {
      snapshotDir: similaritySnapshotDir(s.dataDir),
      vanishedCheckMs: 0,
    });

  it('starts from a snapshot, then catches up with what changed after it', async () => {
    const ids = s.seeded.ids;
    const target = ids.bd_808;
    const before = await similarIds(target);
    expect(before.length).toBeGreaterThan(2);

    expect(await s.deps.similarity.writeSnapshots()).toBe(true);
    const meta = JSON.parse(
      await fs.readFile(path.join(similaritySnapshotDir(s.dataDir), SPACE, 'meta.json'), 'utf8'),
    ) as Json;
    expect(meta.position.analysedUpTo).toMatch(/^\d{4}-/);

    // An unchanged catalogue: the loaded index answers exactly as the rebuilt one.
    const same = openState();
    lines.length = 0;
    await same.refresh();
    expect(lines.some((l) => l.includes('loaded from its snapshot'))).toBe(true);
    const index = same.indexes.get(SPACE);
    expect(index?.nearestToSound(target, { k: 15 }).map((n) => n.id)).toEqual(before);
    await same.close();

    // After the snapshot: the farthest neighbour gets the target's own vector (it becomes the
    // nearest), the pending sound is approved, and another sound is deleted.
    const farthest = before[before.length - 1];
    const deleted = before[0];
    const own = await getSimilarityVector(s.catalogue.db, target, SPACE);
    await setSimilarityVector(s.catalogue.db, farthest, SPACE, own as number[]);
    await moderate(s.catalogue.db, [ids.hat_sci], 'approve');
    await deleteSound(s.catalogue.db, deleted);

    const caught = openState();
    lines.length = 0;
    await caught.refresh();
    expect(lines.some((l) => l.includes('loaded from its snapshot'))).toBe(true);
    const after = caught.indexes.get(SPACE);
    expect(after?.has(deleted)).toBe(false);
    expect(after?.has(ids.hat_sci)).toBe(true);
    const nearest = after?.nearestToSound(target, { k: 3 }) ?? [];
    expect(nearest[0]?.id).toBe(farthest);
    expect(nearest[0]?.score).toBeCloseTo(1, 5);
    await caught.close();

    // The running API drops the deleted sound at its next refresh (it stayed until restart before).
    expect(s.deps.similarity.indexes.get(SPACE)?.has(deleted)).toBe(true);
    await s.deps.similarity.refresh();
    expect(s.deps.similarity.indexes.get(SPACE)?.has(deleted)).toBe(false);
    expect(await similarIds(target)).not.toContain(deleted);
  });

  it('rebuilds from the catalogue when the snapshot is corrupt, answering 503 until then', async () => {
    const dir = path.join(similaritySnapshotDir(s.dataDir), SPACE);
    const meta = JSON.parse(await fs.readFile(path.join(dir, 'meta.json'), 'utf8')) as Json;
    await fs.writeFile(path.join(dir, meta.graphFile), 'not an hnsw graph');

    const state = openState();
    lines.length = 0;
    const loading = state.refresh();
    expect(state.isReady()).toBe(false);
    expect(() => state.assertReady()).toThrow(SimilarityLoading);
    try {
      state.assertReady();
    } catch (err) {
      expect((err as SimilarityLoading).status).toBe(503);
    }
    await loading;
    expect(state.isReady()).toBe(true);
    expect(lines.some((l) => l.includes('snapshot not usable'))).toBe(true);
    const rebuilt = state.indexes.get(SPACE);
    const live = s.deps.similarity.indexes.get(SPACE);
    expect(rebuilt?.ids().sort()).toEqual(live?.ids().sort());
    await state.close();
  });

  it('rebuilds when the snapshot is of another catalogue (a data folder pointed at another database)', async () => {
    const dir = path.join(similaritySnapshotDir(s.dataDir), SPACE);
    await s.deps.similarity.writeSnapshots();
    const metaFile = path.join(dir, 'meta.json');
    const meta = JSON.parse(await fs.readFile(metaFile, 'utf8')) as Json;
    expect(meta.position.catalogue).toMatch(/^\d+\/\S+\/\d+$/);
    // The same positions and graph, but taken in another database: nothing in them can be trusted here.
    await fs.writeFile(
      metaFile,
      JSON.stringify({ ...meta, position: { ...meta.position, catalogue: '1234/another' } }),
    );
    const state = openState();
    lines.length = 0;
    await state.refresh();
    expect(lines.some((l) => l.includes('snapshot not usable') && l.includes('another catalogue'))).toBe(
      true,
    );
    expect(state.indexes.get(SPACE)?.size).toBe(s.deps.similarity.indexes.get(SPACE)?.size);
    await state.close();
  });

  it('rebuilds when the snapshot is of another dimension', async () => {
    const dir = path.join(similaritySnapshotDir(s.dataDir), SPACE);
    await s.deps.similarity.writeSnapshots();
    const metaFile = path.join(dir, 'meta.json');
    const meta = JSON.parse(await fs.readFile(metaFile, 'utf8')) as Json;
    await fs.writeFile(metaFile, JSON.stringify({ ...meta, dimension: meta.dimension + 1 }));
    const state = openState();
    lines.length = 0;
    await state.refresh();
    expect(lines.some((l) => l.includes('snapshot not usable'))).toBe(true);
    expect(state.indexes.get(SPACE)?.size).toBe(s.deps.similarity.indexes.get(SPACE)?.size);
    await state.close();
  });

  it('applies only the rows that changed at a refresh, also after rows stored in one microsecond', async () => {
    // A bulk load stores its rows in one statement, so with one `updated` to the microsecond; a
    // mark kept to the millisecond took them all as newer than itself at every refresh.
    const db = s.catalogue.db;
    await sql`update sound_similarity_vectors set updated = '2026-01-02 03:04:05.678901+00'`.execute(db);
    await sql`update sound_descriptors set updated = '2026-01-02 03:04:05.678901+00'`.execute(db);
    const debug: string[] = [];
    const state = new SimilarityState(
      db,
      createLogger('debug', 'earshot', { write: (l: string) => debug.push(l) }),
      {
        vanishedCheckMs: 0,
      },
    );
    await state.refresh();
    const indexed = state.indexes.get(SPACE)?.size ?? 0;
    expect(indexed).toBeGreaterThan(2);
    const updates = () =>
      debug.map((l) => JSON.parse(l) as Json).filter((l) => l.msg === 'similarity state updated');

    await state.refresh();
    expect(updates(), 'nothing changed: nothing applied').toEqual([]);

    const [a, b] = [...(state.indexes.get(SPACE)?.ids() ?? [])];
    await setSimilarityVector(db, a, SPACE, (await getSimilarityVector(db, b, SPACE)) as number[]);
    await state.refresh();
    expect(updates().map((u) => u.vectors)).toEqual([1]);
    expect(state.indexes.get(SPACE)?.nearestToSound(a, { k: 1 })[0]?.id).toBe(b);
    await state.close();
  });
});

describe.runIf(postgresUrl)('postgres: two API processes on one catalogue', () => {
  let s: TestServer;
  let database: { url: string; drop(): Promise<void> } | undefined;
  const others: Array<{ deps: WiredAppDeps; catalogue: Catalogue }> = [];

  beforeAll(async () => {
    database = await createTestDatabase(postgresUrl as string);
    s = await startTestServer({ DATABASE_URL: database.url });
    // Two more "processes": own connections, own change feed, own similarity state.
    for (let i = 0; i < 2; i++) {
      const config = loadConfig({
        PORT: '0',
        DATA_DIR: s.dataDir,
        DATABASE_URL: database.url,
        LOG_LEVEL: 'silent',
      });
      const logger = createLogger('silent');
      const catalogue = await openCatalogue({ config, logger, role: 'server', description: 'second api' });
      const deps = await buildAppDeps({
        config,
        logger,
        catalogue,
        version: 'test',
        similarityRefreshMs: 60_000,
      });
      others.push({ deps, catalogue });
    }
  }, 180_000);
  afterAll(async () => {
    for (const o of others) {
      await o.deps.dispose();
      await o.catalogue.close();
    }
    await s?.stop();
    await database?.drop();
  });

  it('a sound made public reaches both indexes within 5 s, and a deleted one leaves them', async () => {
    const approved = s.seeded.ids.hat_sci;
    for (const o of others) expect(o.deps.similarity.indexes.get(SPACE)?.has(approved)).toBe(false);
    const started = Date.now();
    await moderate(s.catalogue.db, [approved], 'approve');
    const everyIndexHas = (id: number, present: boolean) =>
      others.every((o) => o.deps.similarity.indexes.get(SPACE)?.has(id) === present);
    while (!everyIndexHas(approved, true) && Date.now() - started < 5_000) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(everyIndexHas(approved, true)).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);

    // A deletion moves no mark; the throttled id scan (every 5 s) finds it at a later change.
    const deleted = s.seeded.ids.bd_klub;
    await deleteSound(s.catalogue.db, deleted);
    const deletedAt = Date.now();
    while (!everyIndexHas(deleted, false) && Date.now() - deletedAt < 12_000) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(everyIndexHas(deleted, false)).toBe(true);
  }, 30_000);
});
