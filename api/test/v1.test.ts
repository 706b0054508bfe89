import { createHash } from 'node:crypto';
import SwaggerParser from '@apidevtools/swagger-parser';
import { bookmarkSound } from '@earshot/catalogue';
import { createApiCredential } from '@earshot/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';

/**
 * Black-box tests of the version 1 interface (`/api/`) against a real server on processed
 * fixture recordings: one test per rule of API.md's legacy sections and DECISIONS.md's v1 lines.
 */

type Json = Record<string, any>;

let s: TestServer;
let key: string;
let ids: Record<string, number>;
const PUBLIC_SAMPLES = [
  'bd_808',
  'bd_fat',
  'hat_cab',
  'elec_wood',
  'elec_twip',
  'tabla_ke1',
  'bd_klub',
  'perc_snap',
];
const ANALYZED = PUBLIC_SAMPLES.filter((name) => name !== 'perc_snap');

beforeAll(async () => {
  s = await startTestServer();
  key = s.seeded.apiKey;
  ids = s.seeded.ids;
  const db = s.catalogue.db;
  const alice = s.seeded.userIds.alice;
  await bookmarkSound(db, { userId: alice, soundId: ids.bd_808, name: 'My kick', category: 'Kicks' });
  await bookmarkSound(db, { userId: alice, soundId: ids.bd_fat, name: 'Fat one', category: 'Kicks' });
  await bookmarkSound(db, { userId: alice, soundId: ids.elec_wood, name: 'Chime' });
  // An approved sound being processed again: its analysis is "not yet available".
  await db
    .updateTable('sounds')
    .set({ moderation_state: 'ok', processing_state: 'Processing' })
    .where('id', '=', ids.hat_sci)
    .execute();
});
afterAll(async () => {
  await s?.stop();
});

function url(
  path: string,
  params: Record<string, string> = {},
  auth: 'api_key' | 'token' | 'none' = 'api_key',
) {
  const u = new URL(`${s.origin}${path}`);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  if (auth !== 'none') u.searchParams.set(auth, key);
  return u;
}
async function json(path: string, params: Record<string, string> = {}): Promise<Json> {
  const res = await fetch(url(path, params));
  expect(res.status, `${path} ${JSON.stringify(params)}`).toBe(200);
  return (await res.json()) as Json;
}
async function expectV1Error(
  res: Response | Promise<Response>,
  status: number,
  detail?: string | RegExp,
): Promise<Json> {
  const r = await res;
  expect(r.status).toBe(status);
  const body = (await r.json()) as Json;
  expect(body).toMatchObject({ error: true, status_code: status });
  expect(typeof body.type).toBe('string');
  expect(body.explanation).toBe(body.detail);
  if (typeof detail === 'string') expect(body.detail).toBe(detail);
  else if (detail) expect(String(body.detail)).toMatch(detail);
  return body;
}
const error = (path: string, params: Record<string, string>, status: number, detail?: string | RegExp) =>
  expectV1Error(fetch(url(path, params)), status, detail);
const idsOf = (page: Json) => (page.sounds as Json[]).map((x) => x.id as number);

const COLLECTION_KEYS = [
  'id',
  'type',
  'duration',
  'original_filename',
  'user',
  'tags',
  'ref',
  'url',
  'serve',
  'similarity',
  'preview-hq-mp3',
  'preview-lq-mp3',
  'preview-hq-ogg',
  'preview-lq-ogg',
  'waveform_m',
  'waveform_l',
  'spectral_m',
  'spectral_l',
  'analysis',
  'analysis_stats',
  'analysis_frames',
];
const FULL_EXTRA = [
  'num_downloads',
  'channels',
  'samplerate',
  'num_comments',
  'num_ratings',
  'filesize',
  'description',
  'bitdepth',
  'bitrate',
  'created',
  'avg_rating',
  'license',
];

describe('paths (version 1)', () => {
  it('answers every path the same with and without the trailing slash', async () => {
    const pack = s.seeded.packId;
    const sound = ids.bd_808;
    const paths: Array<[string, Record<string, string>]> = [
      ['/api/sounds/search', { q: 'kick' }],
      ['/api/sounds/content_search', { t: '.lowlevel.pitch.mean:220' }],
      ['/api/sounds/geotag', { min_lat: '41', max_lat: '42' }],
      [`/api/sounds/${sound}`, {}],
      [`/api/sounds/${sound}/analysis/lowlevel/pitch`, {}],
      [`/api/sounds/${sound}/similar`, {}],
      ['/api/people/alice', {}],
      ['/api/people/bob/sounds', {}],
      ['/api/people/alice/packs', {}],
      ['/api/people/alice/bookmark_categories', {}],
      ['/api/people/alice/bookmark_categories/uncategorized/sounds', {}],
      [`/api/packs/${pack}`, {}],
      [`/api/packs/${pack}/sounds`, {}],
      [`/api/sounds/${sound}/serve`, {}],
    ];
    for (const [path, params] of paths) {
      const bare = await fetch(url(path, params));
      const slashed = await fetch(url(`${path}/`, params));
      expect([bare.status, slashed.status], path).toEqual([200, 200]);
      const [a, b] = [Buffer.from(await bare.arrayBuffer()), Buffer.from(await slashed.arrayBuffer())];
      expect(a.length, path).toBeGreaterThan(0);
      expect(a.equals(b), path).toBe(true);
    }
  });
});

describe('sound (version 1)', () => {
  it('shows the version 1 record with v1 links, timestamps and the pack and geotag only when present', async () => {
    const sound = await json(`/api/sounds/${ids.bd_808}`);
    expect(Object.keys(sound).sort()).toEqual([...COLLECTION_KEYS, ...FULL_EXTRA, 'pack'].sort());
    expect(sound).toMatchObject({
      id: ids.bd_808,
      original_filename: 'Kick 808',
      type: 'flac',
      license: 'Creative Commons 0',
      num_comments: 3,
      ref: `${s.origin}/api/sounds/${ids.bd_808}/`,
      serve: `${s.origin}/api/sounds/${ids.bd_808}/serve/`,
      similarity: `${s.origin}/api/sounds/${ids.bd_808}/similar/`,
      analysis: `${s.origin}/api/sounds/${ids.bd_808}/analysis/`,
      pack: `${s.origin}/api/packs/${s.seeded.packId}/`,
      user: { username: 'alice', ref: `${s.origin}/api/people/alice/`, url: `${s.origin}/people/alice/` },
      created: '2024-01-15 10:01:00',
    });
    expect(sound.created).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(sound).not.toHaveProperty('download');
    const chime = await json(`/api/sounds/${ids.elec_wood}/`);
    expect(chime.geotag).toEqual({ lat: 41.3851, lon: 2.1734 });
    expect(chime).not.toHaveProperty('pack');
  });

  it('answers with and without the trailing slash, with api_key, token or the Token header', async () => {
    const a = await (await fetch(url(`/api/sounds/${ids.bd_fat}`))).json();
    const b = await (await fetch(url(`/api/sounds/${ids.bd_fat}/`, {}, 'token'))).json();
    const c = await (
      await fetch(url(`/api/sounds/${ids.bd_fat}/`, {}, 'none'), {
        headers: { Authorization: `Token ${key}` },
      })
    ).json();
    expect(b).toEqual(a);
    expect(c).toEqual(a);
  });

  it('is a 404 for unknown and unapproved sounds, with the v1 error keys', async () => {
    await error('/api/sounds/999999/', {}, 404);
    await error(`/api/sounds/${ids.hat_sci}/`, {}, 404);
    await error('/api/sounds/abc/', {}, 404);
  });

  it('serves the original file, byte for byte what was processed (md5)', async () => {
    const v2 = (await (
      await fetch(url(`/apiv2/sounds/${ids.bd_808}/`, { fields: 'md5' }, 'token'))
    ).json()) as Json;
    const res = await fetch(url(`/api/sounds/${ids.bd_808}/serve`));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain('bd_808.flac');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(createHash('md5').update(bytes).digest('hex')).toBe(v2.md5);
    await error(`/api/sounds/${ids.hat_sci}/serve/`, {}, 404);
  });
});

describe('sound search (version 1)', () => {
  it('lists every public sound for the default q, 30 a page, with num_results and num_pages', async () => {
    const page = await json('/api/sounds/search/');
    expect(page.num_results).toBe(PUBLIC_SAMPLES.length);
    expect(page.num_pages).toBe(1);
    expect(idsOf(page).sort((a, b) => a - b)).toEqual(
      PUBLIC_SAMPLES.map((n) => ids[n]).sort((a, b) => a - b),
    );
    expect(page).not.toHaveProperty('next');
    expect(page).not.toHaveProperty('previous');
    expect(Object.keys(page.sounds[0]).sort()).toEqual(
      [...COLLECTION_KEYS, ...(page.sounds[0].pack ? ['pack'] : [])].sort(),
    );
  });

  it('pages with p and sounds_per_page; links are absolute on the request origin; past the end is empty', async () => {
    const first = await json('/api/sounds/search', { sounds_per_page: '3', s: 'created_asc' });
    expect(first.num_pages).toBe(3);
    expect(first.sounds).toHaveLength(3);
    expect(first).not.toHaveProperty('previous');
    const next = new URL(first.next);
    expect(`${next.origin}${next.pathname}`).toBe(`${s.origin}/api/sounds/search`);
    expect(next.searchParams.get('p')).toBe('2');
    expect(next.searchParams.get('api_key')).toBe(key);
    const second = (await (await fetch(first.next)).json()) as Json;
    expect(new URL(second.previous).searchParams.get('p')).toBe('1');
    const third = (await (await fetch(second.next)).json()) as Json;
    expect(third).not.toHaveProperty('next');
    const all = [...idsOf(first), ...idsOf(second), ...idsOf(third)];
    expect(all).toEqual(PUBLIC_SAMPLES.map((n) => ids[n]));
    const past = await json('/api/sounds/search', { sounds_per_page: '3', p: '9' });
    expect(past.sounds).toEqual([]);
    expect(past).not.toHaveProperty('next');
    expect(past).not.toHaveProperty('previous');
    expect(
      idsOf(await json('/api/sounds/search', { sounds_per_page: '3', s: 'created_asc', p: 'x' })),
    ).toEqual(idsOf(first));
  });

  it('caps sounds_per_page at 100 and refuses a value that is no positive integer', async () => {
    expect((await json('/api/sounds/search', { sounds_per_page: '500' })).num_pages).toBe(1);
    await error('/api/sounds/search', { sounds_per_page: 'many' }, 400, /sounds_per_page/);
  });

  it('understands +mandatory, -prohibited and "phrases" in q', async () => {
    const kicks = idsOf(await json('/api/sounds/search', { q: 'kick' }));
    expect(kicks.sort()).toEqual([ids.bd_808, ids.bd_fat, ids.bd_klub].sort());
    expect(idsOf(await json('/api/sounds/search', { q: '+kick -fat' })).sort()).toEqual(
      [ids.bd_808, ids.bd_klub].sort(),
    );
    expect(idsOf(await json('/api/sounds/search', { q: '"deep kick"' }))).toEqual([ids.bd_808]);
  });

  it('filters with f and sorts with s', async () => {
    expect(idsOf(await json('/api/sounds/search', { f: 'username:bob' })).sort()).toEqual(
      ['elec_wood', 'elec_twip', 'tabla_ke1', 'perc_snap'].map((n) => ids[n]).sort(),
    );
    const short = await json('/api/sounds/search', {
      f: 'duration:[0 TO 0.3]',
      s: 'duration_asc',
      fields: 'id,duration',
    });
    const durations = (short.sounds as Json[]).map((x) => x.duration as number);
    expect(durations.length).toBeGreaterThan(0);
    expect(durations.every((d) => d <= 0.3)).toBe(true);
    expect(durations).toEqual([...durations].sort((a, b) => a - b));
    const newest = idsOf(await json('/api/sounds/search', { s: 'created_desc' }));
    expect(newest).toEqual(PUBLIC_SAMPLES.map((n) => ids[n]).reverse());
    await error('/api/sounds/search', { f: 'duration:[1 TO' }, 400, /\bf\b/);
    await error('/api/sounds/search', { s: 'loudest' }, 400, /\bs\b/);
  });

  it('returns exactly the fields asked for', async () => {
    const page = await json('/api/sounds/search', { fields: 'id,created,nonsense' });
    for (const sound of page.sounds as Json[]) expect(Object.keys(sound).sort()).toEqual(['created', 'id']);
  });

  it('with g=1 returns one sound per pack, carrying the two grouping fields', async () => {
    const grouped = await json('/api/sounds/search', { g: '1', q: 'drum' });
    const drumsPack = ['bd_808', 'bd_fat', 'hat_cab'].map((n) => ids[n]);
    const fromPack = (grouped.sounds as Json[]).filter((x) => drumsPack.includes(x.id));
    expect(fromPack).toHaveLength(1);
    expect(fromPack[0].n_results_from_the_same_pack).toBe(3);
    const more = (await (await fetch(fromPack[0].results_from_the_same_pack)).json()) as Json;
    expect(idsOf(more).sort()).toEqual(drumsPack.sort());
    // Sounds outside packs are all returned.
    expect(idsOf(grouped)).toContain(ids.tabla_ke1);
    expect(idsOf(grouped)).toContain(ids.bd_klub);
  });
});

describe('content search (version 1)', () => {
  async function pitch(sample: string): Promise<number> {
    return (await json(`/api/sounds/${ids[sample]}/analysis/lowlevel/pitch/mean`)) as unknown as number;
  }

  it('sorts by closeness to a dotted-name target, at most max_results (15 by default)', async () => {
    const page = await json('/api/sounds/content_search', { t: '.lowlevel.pitch.mean:220', fields: 'id' });
    const pitches = await Promise.all(
      ANALYZED.map(async (n) => ({ id: ids[n], d: Math.abs((await pitch(n)) - 220) })),
    );
    expect(idsOf(page)).toEqual(pitches.sort((a, b) => a.d - b.d).map((x) => x.id));
    const two = await json('/api/sounds/content_search', { t: '.lowlevel.pitch.mean:220', max_results: '2' });
    expect(two.num_results).toBe(2);
    expect(idsOf(two)).toEqual(idsOf(page).slice(0, 2));
  });

  it('takes vector targets (comma-separated values): a sound is closest to its own vector', async () => {
    for (const sample of ['bd_808', 'tabla_ke1']) {
      const mfcc = (await json(
        `/api/sounds/${ids[sample]}/analysis/lowlevel/mfcc/mean`,
      )) as unknown as number[];
      expect(Array.isArray(mfcc) && mfcc.length > 1).toBe(true);
      const page = await json('/api/sounds/content_search/', {
        t: `.lowlevel.mfcc.mean:${mfcc.join(',')}`,
        fields: 'id',
      });
      expect(idsOf(page)[0]).toBe(ids[sample]);
      expect(page.num_results).toBe(ANALYZED.length);
    }
  });

  it('filters by descriptor ranges with AND/OR, by id ascending without a target', async () => {
    const low = await json('/api/sounds/content_search', {
      f: '.lowlevel.pitch.mean:[0 TO 300]',
      max_results: '100',
    });
    const expected: number[] = [];
    for (const n of ANALYZED) if ((await pitch(n)) <= 300) expected.push(ids[n]);
    expect(idsOf(low)).toEqual(expected.sort((a, b) => a - b));
    const either = await json('/api/sounds/content_search', {
      f: '(.lowlevel.pitch.mean:[0 TO 300] OR .lowlevel.pitch.mean:[5000 TO *])',
      max_results: '100',
    });
    const high: number[] = [];
    for (const n of ANALYZED) if ((await pitch(n)) >= 5000) high.push(ids[n]);
    expect(idsOf(either)).toEqual([...expected, ...high].sort((a, b) => a - b));
  });

  it('needs a target or a filter', async () => {
    await error('/api/sounds/content_search', {}, 400, 'Introduce either a target, a filter or both.');
    await error('/api/sounds/content_search', { t: '.lowlevel.pitch.mean:abc' }, 400);
    await error('/api/sounds/content_search', { t: '.lowlevel.pitch.mean:220', max_results: '0' }, 400);
  });
});

describe('geotag search (version 1)', () => {
  it('lists the sounds inside the box, each with its geotag', async () => {
    const page = await json('/api/sounds/geotag', {
      min_lat: '41',
      max_lat: '42',
      min_lon: '2',
      max_lon: '3',
    });
    expect(page.num_results).toBe(1);
    expect(page.sounds[0]).toMatchObject({ id: ids.elec_wood, geotag: { lat: 41.3851, lon: 2.1734 } });
    const elsewhere = await json('/api/sounds/geotag/', {
      min_lat: '-10',
      max_lat: '10',
      min_lon: '-10',
      max_lon: '1',
    });
    expect(elsewhere).toMatchObject({ sounds: [], num_results: 0 });
  });

  it('checks the ranges', async () => {
    await error('/api/sounds/geotag', { min_lat: '-91' }, 400, /min_lat/);
    await error('/api/sounds/geotag', { max_lon: '181' }, 400, /max_lon/);
    await error('/api/sounds/geotag', { min_lat: 'north' }, 400, /min_lat/);
    await error('/api/sounds/geotag', { min_lat: '50', max_lat: '40' }, 400);
  });
});

describe('analysis (version 1)', () => {
  it('gives the recommended subset by default and everything with all=true', async () => {
    const subset = await json(`/api/sounds/${ids.bd_808}/analysis/`);
    const all = await json(`/api/sounds/${ids.bd_808}/analysis`, { all: 'true' });
    expect(Object.keys(subset.lowlevel).sort()).toEqual(
      ['average_loudness', 'dissonance', 'mfcc', 'pitch', 'pitch_salience', 'spectral_centroid'].sort(),
    );
    expect(subset.lowlevel.pitch).toEqual({ mean: all.lowlevel.pitch.mean });
    expect(subset.rhythm).toEqual({ bpm: all.rhythm.bpm });
    // The key, its scale and strength are recommended, in the tree's own nesting (tonal.key.*).
    expect(subset.tonal.key).toEqual(all.tonal.key);
    expect(Object.keys(all.lowlevel).length).toBeGreaterThan(Object.keys(subset.lowlevel).length);
  });

  it('follows a slash path; 400 when it matches nothing (or only outside the subset)', async () => {
    const all = await json(`/api/sounds/${ids.bd_808}/analysis`, { all: '1' });
    expect(await json(`/api/sounds/${ids.bd_808}/analysis/lowlevel/spectral_centroid/mean/`)).toBe(
      all.lowlevel.spectral_centroid.mean,
    );
    const flatnessName = Object.keys(all.lowlevel).find((n) => n.startsWith('spectral_flatness'));
    expect(flatnessName).toBeDefined();
    expect(
      await json(`/api/sounds/${ids.bd_808}/analysis/lowlevel/${flatnessName}`, { all: 'True' }),
    ).toEqual(all.lowlevel[flatnessName as string]);
    await error(
      `/api/sounds/${ids.bd_808}/analysis/lowlevel/${flatnessName}`,
      {},
      400,
      'Could not find this path in the analysis data.',
    );
    await error(`/api/sounds/${ids.bd_808}/analysis/nowhere/at/all`, {}, 400);
  });

  it('answers a leaf as JSON, a string one too (the key), in each format', async () => {
    const all = await json(`/api/sounds/${ids.bd_808}/analysis`, { all: '1' });
    expect(typeof all.tonal.key.key).toBe('string');
    const res = await fetch(url(`/api/sounds/${ids.bd_808}/analysis/tonal/key/key/`));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(JSON.parse(await res.text())).toBe(all.tonal.key.key);
    const number = await fetch(url(`/api/sounds/${ids.bd_808}/analysis/tonal/key/strength/`));
    expect(number.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(JSON.parse(await number.text())).toBe(all.tonal.key.strength);
    const yaml = await fetch(url(`/api/sounds/${ids.bd_808}/analysis/tonal/key/key/`, { format: 'yaml' }));
    expect(yaml.headers.get('content-type')).toBe('application/yaml; charset=utf-8');
    expect((await yaml.text()).trim()).toBe(all.tonal.key.key);
  });

  it('is a 409 while the analysis is not yet available, a 404 when it failed or the sound is unknown', async () => {
    await error(`/api/sounds/${ids.hat_sci}/analysis/`, {}, 409);
    await error(`/api/sounds/${ids.perc_snap}/analysis/`, {}, 404);
    await error('/api/sounds/999999/analysis/', {}, 404);
  });
});

describe('similar sounds (version 1)', () => {
  it('lists the queried sound first with distance 0.0, then its neighbours by distance', async () => {
    const page = await json(`/api/sounds/${ids.bd_808}/similar`, { fields: 'id' });
    expect(page.num_results).toBe(ANALYZED.length);
    expect(page.sounds[0]).toEqual({ id: ids.bd_808, distance: 0 });
    const distances = (page.sounds as Json[]).map((x) => x.distance as number);
    expect(distances).toEqual([...distances].sort((a, b) => a - b));
    expect(distances.slice(1).every((d) => d > 0)).toBe(true);
    const three = await json(`/api/sounds/${ids.bd_808}/similar/`, { num_results: '3', preset: 'music' });
    expect(idsOf(three)).toEqual(idsOf(page).slice(0, 3));
    expect((await json(`/api/sounds/${ids.bd_808}/similar/`, { num_results: '500' })).num_results).toBe(
      ANALYZED.length,
    );
  });

  it('is an empty list for a sound not indexed for similarity; 404 unknown; 400 bad preset', async () => {
    expect(await json(`/api/sounds/${ids.perc_snap}/similar/`)).toMatchObject({ sounds: [], num_results: 0 });
    await error('/api/sounds/999999/similar/', {}, 404);
    await error(`/api/sounds/${ids.bd_808}/similar/`, { preset: 'timbre' }, 400, /preset/);
    await error(`/api/sounds/${ids.bd_808}/similar/`, { num_results: '-1' }, 400, /num_results/);
  });
});

describe('people, packs and bookmark categories (version 1)', () => {
  it('shows a user', async () => {
    const alice = await json('/api/people/alice');
    expect(alice).toEqual({
      username: 'alice',
      ref: `${s.origin}/api/people/alice/`,
      url: `${s.origin}/people/alice/`,
      sounds: `${s.origin}/api/people/alice/sounds/`,
      packs: `${s.origin}/api/people/alice/packs/`,
      bookmark_categories: `${s.origin}/api/people/alice/bookmark_categories/`,
      about: 'I record drums.',
      home_page: 'https://alice.example.org',
      signature: '',
      first_name: '',
      last_name: '',
      date_joined: '2024-01-13 10:00:00',
    });
    await error('/api/people/nobody/', {}, 404);
  });

  it("lists a user's sounds newest first, paged", async () => {
    const bob = ['elec_wood', 'elec_twip', 'tabla_ke1', 'perc_snap'].map((n) => ids[n]).reverse();
    const first = await json('/api/people/bob/sounds', { sounds_per_page: '3' });
    expect(first).toMatchObject({ num_results: 4, num_pages: 2 });
    const second = (await (await fetch(first.next)).json()) as Json;
    expect([...idsOf(first), ...idsOf(second)]).toEqual(bob);
  });

  it("lists a user's packs as num_results and packs", async () => {
    const packs = await json('/api/people/alice/packs/');
    expect(packs.num_results).toBe(1); // not the seeded 'Empty' pack: it holds no public sound
    expect((packs.packs as Json[]).map((p) => p.name)).toEqual(['Drums']);
  });

  it("lists bookmark categories with 'Uncategorized bookmarks' last, and their sounds with bookmark_name", async () => {
    const list = await json('/api/people/alice/bookmark_categories');
    expect(list.num_results).toBe(2);
    expect((list.categories as Json[]).map((c) => c.name)).toEqual(['Kicks', 'Uncategorized bookmarks']);
    const kicks = list.categories[0];
    const page = (await (await fetch(`${kicks.sounds}?api_key=${key}`)).json()) as Json;
    expect((page.sounds as Json[]).map((x) => [x.id, x.bookmark_name]).sort()).toEqual(
      [
        [ids.bd_808, 'My kick'],
        [ids.bd_fat, 'Fat one'],
      ].sort(),
    );
    const loose = await json('/api/people/alice/bookmark_categories/uncategorized/sounds');
    expect((loose.sounds as Json[]).map((x) => [x.id, x.bookmark_name])).toEqual([[ids.elec_wood, 'Chime']]);
    await error('/api/people/alice/bookmark_categories/99999/sounds/', {}, 404);
    expect(await json('/api/people/bob/bookmark_categories/')).toEqual({ num_results: 0, categories: [] });
  });

  it("the categories' url links are the website's bookmark pages, naming their sounds", async () => {
    const list = await json('/api/people/alice/bookmark_categories');
    const [kicks, loose] = list.categories as Json[];
    expect(kicks.url).toBe(`${s.origin}/people/alice/bookmarks/category/${kicks.id}/`);
    expect(loose.url).toBe(`${s.origin}/people/alice/bookmarks/`);
    const kicksPage = await fetch(kicks.url);
    expect(kicksPage.status).toBe(200);
    expect(kicksPage.headers.get('content-type')).toMatch(/^text\/html/);
    const kicksHtml = await kicksPage.text();
    expect(kicksHtml).toContain('Kicks');
    expect(kicksHtml).toContain('My kick');
    expect(kicksHtml).toContain('Fat one');
    expect(kicksHtml).toContain(`/people/alice/sounds/${ids.bd_808}/`);
    expect(kicksHtml).not.toContain('Chime');
    const all = await fetch(loose.url);
    expect(all.status).toBe(200);
    const allHtml = await all.text();
    // The loose bookmarks, and a link to each category.
    expect(allHtml).toContain('Chime');
    expect(allHtml).toContain(`/people/alice/bookmarks/category/${kicks.id}/`);
    expect((await fetch(`${s.origin}/people/alice/bookmarks/category/99999/`)).status).toBe(404);
    expect((await fetch(`${s.origin}/people/nobody-here/bookmarks/`)).status).toBe(404);
  });

  it('shows a pack and its sounds', async () => {
    const pack = await json(`/api/packs/${s.seeded.packId}`);
    expect(pack).toMatchObject({
      name: 'Drums',
      description: 'Some drums',
      created: '2024-01-15 10:00:00',
      user: { username: 'alice' },
      sounds: `${s.origin}/api/packs/${s.seeded.packId}/sounds/`,
    });
    const sounds = await json(`/api/packs/${s.seeded.packId}/sounds/`);
    expect(idsOf(sounds)).toEqual([ids.hat_cab, ids.bd_fat, ids.bd_808]);
    await error('/api/packs/999999/', {}, 404);
  });
});

describe('errors, authentication and limits (version 1)', () => {
  it('asks for a key, and names a wrong api_key', async () => {
    await expectV1Error(
      fetch(url('/api/sounds/search', {}, 'none')),
      401,
      'Please include your api key as the api_key GET parameter',
    );
    await expectV1Error(
      fetch(`${s.origin}/api/sounds/search?api_key=wrong`),
      401,
      'Supplied api_key does not exist',
    );
  });

  it('answers an unknown path as InvalidUrl and another method with a 405', async () => {
    const body = await error('/api/nothing/here/', {}, 404, 'The introduced url is invalid.');
    expect(body.type).toBe('InvalidUrl');
    await expectV1Error(fetch(url('/api/sounds/search/'), { method: 'POST' }), 405);
  });

  /** A new key of the standard level that has already spent 30 requests through version 2. */
  async function halfSpentStandardKey(name: string): Promise<string> {
    const credential = await createApiCredential(s.catalogue.db, {
      username: 'bob',
      name,
      redirectUri: 'http://127.0.0.1/cb',
      level: 'standard',
    });
    const limited = credential.client_secret;
    for (let i = 0; i < 30; i++) {
      const res = await fetch(`${s.origin}/apiv2/users/alice/?token=${limited}`);
      await res.arrayBuffer();
      expect(res.status).toBe(200);
    }
    return limited;
  }

  it('counts v1 requests in the same per-credential limits as v2', async () => {
    const limited = await halfSpentStandardKey('v1 limited');
    for (let i = 0; i < 30; i++) {
      const res = await fetch(`${s.origin}/api/people/alice/?api_key=${limited}`);
      await res.arrayBuffer();
      expect(res.status).toBe(200);
    }
    const body = await expectV1Error(fetch(`${s.origin}/api/people/alice/?api_key=${limited}`), 429);
    expect(body.type).toBe('Throttled');
  });

  it('counts cached repeats (answered without the application) in the same limits, with the v1 429', async () => {
    const limited = await halfSpentStandardKey('v1 limited, cached');
    // The first of each fills the caches; the repeats are the hot path's.
    const repeats = [`/api/sounds/${ids.bd_fat}/`, '/api/sounds/search/?q=kick'];
    for (let i = 0; i < 30; i++) {
      const path = repeats[i % 2];
      const res = await fetch(`${s.origin}${path}${path.includes('?') ? '&' : '?'}api_key=${limited}`);
      await res.arrayBuffer();
      expect(res.status).toBe(200);
    }
    for (const path of repeats) {
      const res = fetch(`${s.origin}${path}${path.includes('?') ? '&' : '?'}api_key=${limited}`);
      const body = await expectV1Error(res, 429);
      expect(body.type).toBe('Throttled');
    }
  });
});

describe('rendered answers (version 1)', () => {
  it('answers repeats from the caches exactly as the first time, and still checks the key', async () => {
    for (const path of [
      `/api/sounds/${ids.tabla_ke1}`,
      `/api/sounds/${ids.tabla_ke1}/`,
      '/api/sounds/search/',
    ]) {
      // The sound instance's hot path takes only api_key/token/format: no other parameter.
      const params: Record<string, string> = path.includes('search') ? { q: 'tabla' } : {};
      const first = await (await fetch(url(path, params))).text();
      const again = await (await fetch(url(path, params))).text();
      expect(again).toBe(first);
      expect(JSON.parse(first)).not.toHaveProperty('detail');
      const wrong = new URL(`${s.origin}${path}`);
      for (const [k, v] of Object.entries(params)) wrong.searchParams.set(k, v);
      wrong.searchParams.set('api_key', 'wrong');
      await expectV1Error(fetch(wrong), 401, 'Supplied api_key does not exist');
    }
  });
});

describe('OpenAPI document (version 1)', () => {
  it('is valid, beside version 2, and lists every version 1 path with api_key', async () => {
    const doc = await json('/api/openapi.json');
    await SwaggerParser.validate(structuredClone(doc) as never);
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        '/api/sounds/search/',
        '/api/sounds/content_search/',
        '/api/sounds/geotag/',
        '/api/sounds/{sound_id}/',
        '/api/sounds/{sound_id}/analysis/{filter}',
        '/api/sounds/{sound_id}/similar/',
        '/api/sounds/{sound_id}/serve/',
        '/api/people/{username}/',
        '/api/people/{username}/sounds/',
        '/api/people/{username}/packs/',
        '/api/people/{username}/bookmark_categories/',
        '/api/people/{username}/bookmark_categories/{category}/sounds/',
        '/api/packs/{pack_id}/',
        '/api/packs/{pack_id}/sounds/',
        '/api/openapi.json',
      ].sort(),
    );
    expect(doc.components.securitySchemes.apiKeyQuery_api_key).toEqual({
      type: 'apiKey',
      in: 'query',
      name: 'api_key',
    });
    const v2 = await json('/apiv2/openapi.json');
    expect(Object.keys(v2.paths).some((p) => p.startsWith('/api/'))).toBe(false);
  });
});
