import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';

/**
 * Version 1 is another face of the same services and search engine: the same question asked
 * through `/api/` and `/apiv2/` must select the same sounds in the same order. Each pair below
 * is one question in both languages; the whole list of ids is compared (one page of 100).
 */

type Json = Record<string, any>;

let s: TestServer;
let key: string;
let ids: Record<string, number>;

beforeAll(async () => {
  s = await startTestServer();
  key = s.seeded.apiKey;
  ids = s.seeded.ids;
});
afterAll(async () => {
  await s?.stop();
});

async function get(path: string, params: Record<string, string>): Promise<Json> {
  const u = new URL(`${s.origin}${path}`);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  u.searchParams.set(path.startsWith('/apiv2/') ? 'token' : 'api_key', key);
  const res = await fetch(u);
  expect(res.status, `${u.pathname}${u.search}`).toBe(200);
  return (await res.json()) as Json;
}
const v1Ids = async (path: string, params: Record<string, string>) =>
  ((await get(path, { ...params, fields: 'id', sounds_per_page: '100' })).sounds as Json[]).map((x) => x.id);
const v2Ids = async (path: string, params: Record<string, string>) =>
  ((await get(path, { ...params, fields: 'id', page_size: '100' })).results as Json[]).map((x) => x.id);

/** [v1 q, f, s] → the v2 query, filter and sort that ask the same. */
const SEARCHES: Array<{ v1: Record<string, string>; v2: Record<string, string> }> = [
  { v1: {}, v2: {} },
  { v1: { q: 'kick' }, v2: { query: 'kick' } },
  { v1: { q: '+drum -hat', s: 'created_asc' }, v2: { query: '+drum -hat', sort: 'created_asc' } },
  { v1: { q: '"kick drum"' }, v2: { query: '"kick drum"' } },
  { v1: { f: 'tag:drum', s: 'duration_desc' }, v2: { filter: 'tag:drum', sort: 'duration_desc' } },
  { v1: { f: 'username:bob', s: 'created_desc' }, v2: { filter: 'username:bob', sort: 'created_desc' } },
  {
    v1: { f: 'duration:[0 TO 0.4]', s: 'duration_asc' },
    v2: { filter: 'duration:[0 TO 0.4]', sort: 'duration_asc' },
  },
  { v1: { f: 'is_geotagged:true' }, v2: { filter: 'is_geotagged:true' } },
  {
    v1: { f: 'license:"Creative Commons 0"', s: 'rating_desc' },
    v2: { filter: 'license:"Creative Commons 0"', sort: 'rating_desc' },
  },
  { v1: { q: 'drum', g: '1' }, v2: { query: 'drum', group_by_pack: '1' } },
  {
    v1: { f: 'created:[2024-01-15T10:03:00Z TO *]', s: 'created_asc' },
    v2: { filter: 'created:[2024-01-15T10:03:00Z TO *]', sort: 'created_asc' },
  },
];

describe('version 1 and version 2 select the same sounds in the same order', () => {
  it.each(SEARCHES)('sound search $v1', async ({ v1, v2 }) => {
    const a = await v1Ids('/api/sounds/search/', v1);
    const b = await v2Ids('/apiv2/search/', v2);
    expect(a.length).toBeGreaterThan(0);
    expect(a).toEqual(b);
  });

  it('content search: target and filter', async () => {
    const t = await v1Ids('/api/sounds/content_search/', {
      t: '.lowlevel.pitch.mean:220',
      max_results: '100',
    });
    const target = await v2Ids('/apiv2/search/content/', { target: 'lowlevel.pitch.mean:220' });
    expect(t.length).toBeGreaterThan(1);
    expect(t).toEqual(target);
    const f = await v1Ids('/api/sounds/content_search/', {
      f: '.lowlevel.pitch.mean:[0 TO 1000]',
      max_results: '100',
    });
    const filter = await v2Ids('/apiv2/search/content/', {
      descriptors_filter: 'lowlevel.pitch.mean:[0 TO 1000]',
    });
    expect(f.length).toBeGreaterThan(0);
    expect(f).toEqual(filter);
  });

  it('similar sounds: version 1 is the queried sound, then version 2 list', async () => {
    const a = await v1Ids(`/api/sounds/${ids.hat_cab}/similar/`, { num_results: '100' });
    const b = await v2Ids(`/apiv2/sounds/${ids.hat_cab}/similar/`, {});
    expect(a[0]).toBe(ids.hat_cab);
    expect(a.slice(1)).toEqual(b);
  });

  it('user sounds, pack sounds and geotag box', async () => {
    expect(await v1Ids('/api/people/bob/sounds/', {})).toEqual(await v2Ids('/apiv2/users/bob/sounds/', {}));
    expect(await v1Ids(`/api/packs/${s.seeded.packId}/sounds/`, {})).toEqual(
      await v2Ids(`/apiv2/packs/${s.seeded.packId}/sounds/`, {}),
    );
    const box = await v1Ids('/api/sounds/geotag/', {
      min_lat: '0',
      max_lat: '60',
      min_lon: '-10',
      max_lon: '20',
    });
    const v2Box = await v2Ids('/apiv2/search/', {
      filter: 'geotag:"Intersects(-10 0 20 60)"',
      sort: 'created_desc',
    });
    expect(box).toEqual([ids.elec_wood]);
    expect(box).toEqual(v2Box);
  });

  it('pages split the same list the same way', async () => {
    const v1Page2 = (
      await get('/api/sounds/search/', {
        q: '+',
        s: 'created_asc',
        sounds_per_page: '3',
        p: '2',
        fields: 'id',
      })
    ).sounds as Json[];
    const v2Page2 = (
      await get('/apiv2/search/', { sort: 'created_asc', page_size: '3', page: '2', fields: 'id' })
    ).results as Json[];
    expect(v1Page2.map((x) => x.id)).toEqual(v2Page2.map((x) => x.id));
  });
});
