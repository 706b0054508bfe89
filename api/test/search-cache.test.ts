import { createTestDatabase } from '@earshot/catalogue/testing';
import { loadConfig } from '@earshot/common';
import { testService } from '@earshot/common/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildAppDeps, type WiredAppDeps } from '../src/build-deps.ts';
import { type RunningServer, startServer } from '../src/server.ts';
import { startTestServer, type TestServer } from './support/server.ts';

/**
 * The search caches (rendered pages, query results, filter id sets, sound records) against the
 * real PostgreSQL server: answers are exactly those of the uncached path (which runs every text
 * search in the database, where the served one answers from its posting index), and a new,
 * approved, edited or deleted sound shows in the very next search, whichever connection wrote it.
 */

const postgresUrl = await testService('postgres');

type Json = Record<string, any>;

describe.skipIf(!postgresUrl)('search caches on PostgreSQL', () => {
  let database: { url: string; drop(): Promise<void> };
  let s: TestServer;
  let uncachedDeps: WiredAppDeps;
  let uncached: RunningServer;

  beforeAll(async () => {
    database = await createTestDatabase(postgresUrl as string);
    s = await startTestServer({ DATABASE_URL: database.url });
    uncachedDeps = await buildAppDeps({
      config: loadConfig({ PORT: '0', DATA_DIR: s.dataDir, DATABASE_URL: database.url, LOG_LEVEL: 'silent' }),
      logger: s.deps.logger,
      catalogue: s.catalogue,
      similarityRefreshMs: 0,
      recordCacheMs: 0,
      changeFeed: false,
      searchIndex: false,
    });
    uncached = await startServer(uncachedDeps);
    // The served process answers the text searches it can from its index once built: compared
    // with the database's answers of the uncached one from here on.
    await vi.waitFor(
      async () => {
        const ready = (await (await fetch(`${s.origin}/ready`)).json()) as Json;
        expect(ready.text_search).toBe('index');
      },
      { timeout: 60_000, interval: 50 },
    );
  }, 180_000);
  afterAll(async () => {
    await uncached?.close();
    await uncachedDeps?.dispose();
    await s?.stop();
    await database?.drop();
  });

  async function get(origin: string, path: string): Promise<{ status: number; body: string }> {
    const res = await fetch(`${origin}${path}`, { headers: { Authorization: `Token ${s.seeded.apiKey}` } });
    return { status: res.status, body: await res.text() };
  }
  async function search(path: string): Promise<Json> {
    const res = await get(s.origin, path);
    expect(res.status, `${path}: ${res.body}`).toBe(200);
    return JSON.parse(res.body) as Json;
  }
  const idsOf = (page: Json): number[] => (page.results as Json[]).map((r) => r.id);

  const SEARCHES = [
    '/apiv2/search/?query=kick',
    '/apiv2/search/text/?query=kick&fields=id,name,tags&page_size=2',
    '/apiv2/search/text/?query=kick&fields=id,name,tags&page_size=2&page=2',
    '/apiv2/search/text/?query=drum&sort=created_desc&fields=id,name',
    '/apiv2/search/text/?filter=tag:drum&sort=duration_asc&fields=id,name,duration',
    '/apiv2/search/text/?query=&filter=license:"Creative Commons 0"&fields=id,username',
    '/apiv2/search/text/?query=kick&group_by_pack=1&fields=id,name,n_from_same_pack,more_from_same_pack',
    '/apiv2/search/text/?query=kick&weights=tag:4,name:1&fields=id,score',
    '/apiv2/search/text/?query=drum&filter=tag:kick&format=xml',
    '/apiv2/search/text/?similar_to=1&fields=id,score',
    '/apiv2/search/text/?similar_to=1&filter=tag:drum&fields=id,score',
    '/apiv2/search/content/?target=lowlevel.spectral_centroid.mean:1000&fields=id,score',
    '/apiv2/search/content/?descriptors_filter=lowlevel.spectral_centroid.mean:[0 TO 100000]&fields=id',
    '/apiv2/search/combined/?target=lowlevel.spectral_centroid.mean:200&filter=tag:drum&fields=id,name',
    '/apiv2/search/combined/?target=lowlevel.spectral_centroid.mean:200&filter=tag:drum&fields=id&page_size=2&page=2',
    '/apiv2/search/combined/?query=kick&descriptors_filter=lowlevel.spectral_centroid.mean:[0 TO 100000]&fields=id',
    '/apiv2/search/text/?filter=tag:[',
    '/apiv2/search/combined/?filter=tag:kick',
    '/apiv2/search/text/?query=kick&page=99',
  ];

  it('answers every search exactly as the uncached path does, first time and from the cache', async () => {
    const similar = `/apiv2/sounds/${s.seeded.ids.bd_808}/similar/`;
    for (const path of [
      ...SEARCHES,
      `${similar}?fields=id,score`,
      `${similar}?fields=id,name&page_size=2&page=2`,
      '/apiv2/sounds/999999/similar/',
    ]) {
      const expected = await get(uncached.origin, path);
      const first = await get(s.origin, path);
      const again = await get(s.origin, path);
      // The links name the server they came from; everything else must be identical.
      const local = (body: string) => body.replaceAll(s.origin, uncached.origin);
      expect(local(first.body), path).toBe(expected.body);
      expect(first.status, path).toBe(expected.status);
      expect(local(again.body), path).toBe(expected.body);
      expect(again.status, path).toBe(expected.status);
    }
  });

  it('sends the application’s headers with a page served by the hot path', async () => {
    const headersOf = async (origin: string, path: string) => {
      const res = await fetch(`${origin}${path}`, { headers: { Authorization: `Token ${s.seeded.apiKey}` } });
      await res.arrayBuffer();
      const out: Record<string, string> = {};
      res.headers.forEach((value, name) => {
        if (!['date', 'x-request-id', 'keep-alive', 'connection'].includes(name)) out[name] = value;
      });
      return out;
    };
    for (const path of [
      '/apiv2/search/text/?query=kick&fields=id,name',
      `/apiv2/search/combined/?target=lowlevel.spectral_centroid.mean:300&filter=tag:drum&fields=id&token=${s.seeded.apiKey}`,
      `/apiv2/sounds/${s.seeded.ids.bd_808}/similar/?fields=id,score`,
    ]) {
      await get(s.origin, path);
      const hot = await headersOf(s.origin, path);
      const expected = await headersOf(uncached.origin, path);
      expect(hot, path).toEqual(expected);
    }
  });

  it('serves a repeated search from the cache while nothing was notified', async () => {
    const path = '/apiv2/search/text/?query=kick&fields=id,name';
    const before = await search(path);
    // A change written with the triggers off sends no notification: the cache cannot know.
    await s.catalogue.db.transaction().execute(async (tx) => {
      await sql`set local session_replication_role = replica`.execute(tx);
      await sql`update sounds set name = 'Silent rename' where id = ${s.seeded.ids.bd_808}`.execute(tx);
    });
    expect(await search(path)).toEqual(before);
    // The same change made normally shows at once.
    await sql`update sounds set name = 'Kick 808' where id = ${s.seeded.ids.bd_808}`.execute(s.catalogue.db);
    await sql`update sounds set name = 'Loud rename kick' where id = ${s.seeded.ids.bd_808}`.execute(
      s.catalogue.db,
    );
    const after = await search(path);
    expect((after.results as Json[]).find((r) => r.id === s.seeded.ids.bd_808)?.name).toBe(
      'Loud rename kick',
    );
    await sql`update sounds set name = 'Kick 808' where id = ${s.seeded.ids.bd_808}`.execute(s.catalogue.db);
  });

  it('shows an approved, a new, an edited and a deleted sound in the next search', async () => {
    const db = s.catalogue.db;
    const hatPath = '/apiv2/search/text/?query=hat&fields=id,name';
    const pending = s.seeded.ids.hat_sci;
    expect(idsOf(await search(hatPath))).not.toContain(pending);
    // Approved.
    await sql`update sounds set moderation_state = 'ok' where id = ${pending}`.execute(db);
    expect(idsOf(await search(hatPath))).toContain(pending);

    // New: a copy of an existing sound under a new name.
    const newPath = '/apiv2/search/text/?query=zebrafinch&fields=id,name';
    expect((await search(newPath)).count).toBe(0);
    const columns = (
      await sql<{ name: string }>`select column_name as name from information_schema.columns
        where table_name = 'sounds' and table_schema = current_schema()
          and column_name not in ('id', 'name', 'md5') and is_generated = 'NEVER'
          and (identity_generation is null)`.execute(db)
    ).rows.map((r) => r.name);
    const list = sql.join(columns.map((c) => sql.id(c)));
    const inserted = await sql<{ id: number }>`insert into sounds (name, md5, ${list})
      select 'Zebrafinch call', md5(random()::text), ${list} from sounds where id = ${s.seeded.ids.bd_fat}
      returning id`.execute(db);
    const newId = inserted.rows[0].id;
    const found = await search(newPath);
    expect(idsOf(found)).toEqual([newId]);
    expect(found.results[0].name).toBe('Zebrafinch call');

    // Edited: the new name is found and shown, the old one no longer matches.
    await sql`update sounds set name = 'Quokka call' where id = ${newId}`.execute(db);
    expect((await search(newPath)).count).toBe(0);
    const renamed = await search('/apiv2/search/text/?query=quokka&fields=id,name');
    expect(renamed.results).toEqual([{ id: newId, name: 'Quokka call' }]);

    // Deleted: gone from text search, and from combined search (its text filter is re-read).
    const combined = `/apiv2/search/combined/?target=lowlevel.spectral_centroid.mean:200&filter=tag:fat&fields=id`;
    expect(idsOf(await search(combined))).toContain(s.seeded.ids.bd_fat);
    await sql`delete from sounds where id = ${newId}`.execute(db);
    expect((await search('/apiv2/search/text/?query=quokka&fields=id,name')).count).toBe(0);
    await sql`delete from sounds where id = ${s.seeded.ids.bd_fat}`.execute(db);
    expect(idsOf(await search(combined))).not.toContain(s.seeded.ids.bd_fat);
    expect(idsOf(await search('/apiv2/search/?query=kick&fields=id'))).not.toContain(s.seeded.ids.bd_fat);
  });

  it('gives identical concurrent searches the same, current answer', async () => {
    await sql`update sounds set num_downloads = num_downloads + 1 where id = ${s.seeded.ids.bd_808}`.execute(
      s.catalogue.db,
    );
    const path = '/apiv2/search/text/?query=drum&fields=id,name,num_downloads';
    const answers = await Promise.all(Array.from({ length: 20 }, () => get(s.origin, path)));
    const expected = await get(uncached.origin, path);
    for (const answer of answers)
      expect(answer.body.replaceAll(s.origin, uncached.origin)).toBe(expected.body);
  });

  it('shows an edited sound in the next version 1 search page and sound, both served from the caches before', async () => {
    const id = s.seeded.ids.tabla_ke1;
    const key = s.seeded.apiKey;
    const v1 = async (path: string): Promise<Json> => {
      const res = await fetch(`${s.origin}${path}${path.includes('?') ? '&' : '?'}api_key=${key}`);
      expect(res.status, path).toBe(200);
      return (await res.json()) as Json;
    };
    const searchPath = '/api/sounds/search/?q=tabla&sounds_per_page=5';
    const soundPath = `/api/sounds/${id}/`;
    // Twice each: the second answer comes from the hot path's cached bytes.
    for (let i = 0; i < 2; i++) {
      expect((await v1(searchPath)).sounds.find((x: Json) => x.id === id)?.original_filename).toBe(
        'Tabla ke',
      );
      expect((await v1(soundPath)).description).toBe('A tabla stroke');
    }
    const db = s.catalogue.db;
    try {
      await sql`update sounds set name = 'Tabla ke, edited', description = 'An edited stroke'
        where id = ${id}`.execute(db);
      const page = await v1(searchPath);
      expect(page.sounds.find((x: Json) => x.id === id)?.original_filename).toBe('Tabla ke, edited');
      const sound = await v1(soundPath);
      expect([sound.original_filename, sound.description]).toEqual(['Tabla ke, edited', 'An edited stroke']);
    } finally {
      await sql`update sounds set name = 'Tabla ke', description = 'A tabla stroke' where id = ${id}`.execute(
        db,
      );
    }
  });
});
