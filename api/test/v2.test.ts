import SwaggerParser from '@apidevtools/swagger-parser';
import { loadConfig } from '@earshot/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { buildAppDeps } from '../src/build-deps.ts';
import { type RunningServer, startServer } from '../src/server.ts';
import { startTestServer, type TestServer } from './support/server.ts';

/**
 * Black-box tests of every version 2 read resource against a real server: embedded catalogue,
 * real recordings processed by the media pipeline, the similarity engine loaded from the catalogue.
 */

type Json = Record<string, any>;

let s: TestServer;
let variantA: RunningServer;
let key: string;
let ids: Record<string, number>;

beforeAll(async () => {
  s = await startTestServer();
  key = s.seeded.apiKey;
  ids = s.seeded.ids;
  const config = loadConfig({ PORT: '0', DATA_DIR: s.dataDir, API_VARIANT: 'A' });
  const depsA = await buildAppDeps({
    config,
    logger: s.deps.logger,
    catalogue: s.catalogue,
    similarityRefreshMs: 0,
  });
  variantA = await startServer(depsA);
});
afterAll(async () => {
  await variantA?.close();
  await s?.stop();
});

async function call(path: string, init: RequestInit & { origin?: string; noKey?: boolean } = {}) {
  const url = new URL(`${init.origin ?? s.origin}${path}`);
  if (!init.noKey) url.searchParams.set('token', key);
  return fetch(url, init);
}
async function json(path: string, init: RequestInit & { origin?: string } = {}): Promise<Json> {
  const res = await call(path, init);
  expect(res.status, `${path} → ${res.status}`).toBe(200);
  return (await res.json()) as Json;
}
async function expectError(
  path: string,
  status: number,
  detail?: string | RegExp,
  init: RequestInit & { noKey?: boolean } = {},
) {
  const res = await call(path, init);
  expect(res.status, path).toBe(status);
  const body = (await res.json()) as Json;
  expect(body).toHaveProperty('detail');
  if (typeof detail === 'string') expect(body.detail).toBe(detail);
  else if (detail) expect(String(body.detail)).toMatch(detail);
  return body;
}

const CONTRACT_FIELDS = [
  'id',
  'url',
  'name',
  'tags',
  'description',
  'category',
  'subcategory',
  'category_code',
  'category_is_user_provided',
  'geotag',
  'is_geotagged',
  'created',
  'license',
  // Freesound's API since 2025 (issue 35): every sound instance carries it.
  'gen_ai_preference',
  'type',
  'channels',
  'filesize',
  'bitrate',
  'bitdepth',
  'duration',
  'samplerate',
  'username',
  'pack',
  'download',
  'bookmark',
  'previews',
  'images',
  'num_downloads',
  'avg_rating',
  'num_ratings',
  'rate',
  'comments',
  'num_comments',
  'comment',
  'similar_sounds',
  'analysis_files',
  'is_explicit',
  'is_remix',
  'was_remixed',
  'md5',
];

describe('authentication', () => {
  it('needs a credential, refuses a bad one with "Invalid token", accepts header and query', async () => {
    await expectError(`/apiv2/sounds/${ids.bd_808}/`, 401, 'Authentication credentials were not provided.', {
      noKey: true,
    });
    const bad = await fetch(`${s.origin}/apiv2/sounds/${ids.bd_808}/?token=wrong`);
    expect(bad.status).toBe(401);
    expect(await bad.json()).toEqual({ detail: 'Invalid token' });
    const header = await fetch(`${s.origin}/apiv2/sounds/${ids.bd_808}/`, {
      headers: { Authorization: `Token ${key}` },
    });
    expect(header.status).toBe(200);
  });
});

describe('sound instance', () => {
  it('returns every contract field by default and no descriptors', async () => {
    const sound = await json(`/apiv2/sounds/${ids.bd_808}/`);
    expect(Object.keys(sound).sort()).toEqual([...CONTRACT_FIELDS].sort());
    expect(sound).toMatchObject({
      id: ids.bd_808,
      name: 'Kick 808',
      tags: ['kick', 'drum', '808'],
      license: 'Creative Commons 0',
      username: 'alice',
      created: '2024-01-15T10:01:00.123',
      type: 'flac',
      channels: 1,
      samplerate: 44100,
      is_geotagged: false,
      geotag: null,
      num_comments: 3,
      pack: `${s.origin}/apiv2/packs/${s.seeded.packId}/`,
      similar_sounds: `${s.origin}/apiv2/sounds/${ids.bd_808}/similar/`,
    });
    expect(sound.duration).toBeCloseTo(0.56, 1);
    expect(sound.md5).toMatch(/^[0-9a-f]{32}$/);
    expect(Object.keys(sound.previews).sort()).toEqual([
      'preview-hq-mp3',
      'preview-hq-ogg',
      'preview-lq-mp3',
      'preview-lq-ogg',
    ]);
    expect(Object.keys(sound.images).sort()).toEqual([
      'spectral_l',
      'spectral_m',
      'waveform_l',
      'waveform_m',
    ]);
    for (const url of [
      ...Object.values(sound.previews),
      ...Object.values(sound.images),
      ...sound.analysis_files,
    ]) {
      expect(url).toMatch(new RegExp(`^${s.origin}/`));
    }
  });

  it('returns exactly the listed fields, descriptors by name, "is explicit" spelled either way', async () => {
    const sound = await json(
      `/apiv2/sounds/${ids.bd_808}/?fields=name,id,spectral_centroid,is explicit,nonsense`,
    );
    expect(Object.keys(sound)).toEqual(['id', 'name', 'is_explicit', 'spectral_centroid']);
    expect(typeof sound.spectral_centroid).toBe('number');
  });

  it('shows the geotag as "lat lon"', async () => {
    expect(await json(`/apiv2/sounds/${ids.elec_wood}/?fields=geotag,is_geotagged`)).toEqual({
      geotag: '41.3851 2.1734',
      is_geotagged: true,
    });
  });

  it('answers 404 for unknown, unapproved and malformed ids', async () => {
    await expectError('/apiv2/sounds/999999/', 404);
    await expectError(`/apiv2/sounds/${ids.hat_sci}/`, 404);
    await expectError('/apiv2/sounds/abc/', 404);
  });

  it('renders xml and yaml when asked', async () => {
    const xml = await call(`/apiv2/sounds/${ids.bd_808}/?fields=id,tags&format=xml`);
    expect(await xml.text()).toContain(`<root><id>${ids.bd_808}</id><tags><list-item>kick</list-item>`);
    const yaml = await call(`/apiv2/sounds/${ids.bd_808}/?fields=id,name`, {
      headers: { Accept: 'application/yaml' },
    });
    expect(YAML.parse(await yaml.text())).toEqual({ id: ids.bd_808, name: 'Kick 808' });
    await expectError(`/apiv2/sounds/${ids.bd_808}/?format=csv`, 400, /format/);
  });

  it('answers a repeated request from the rendered cache with the same body, in every format', async () => {
    const path = `/apiv2/sounds/${ids.bd_808}/?fields=id,name,tags`;
    const first = await call(path);
    const again = await call(path);
    expect(first.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = await first.text();
    expect(await again.text()).toBe(body);
    expect(JSON.parse(body)).toEqual({ id: ids.bd_808, name: 'Kick 808', tags: ['kick', 'drum', '808'] });
    // The cached entry still renders the other formats from its value.
    const xml = await call(`${path}&format=xml`);
    expect(xml.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(await xml.text()).toContain(`<root><id>${ids.bd_808}</id><name>Kick 808</name>`);
    const yaml = await call(path, { headers: { Accept: 'application/yaml' } });
    expect(YAML.parse(await yaml.text())).toEqual(JSON.parse(body));
    // Another field selection or another origin is another body.
    expect(await json(`/apiv2/sounds/${ids.bd_808}/?fields=id`)).toEqual({ id: ids.bd_808 });
    const viaLocalhost = await json(`/apiv2/sounds/${ids.bd_808}/?fields=pack`, {
      origin: s.origin.replace('127.0.0.1', 'localhost'),
    });
    expect(viaLocalhost.pack).toBe(
      `${s.origin.replace('127.0.0.1', 'localhost')}/apiv2/packs/${s.seeded.packId}/`,
    );
    expect((await json(`/apiv2/sounds/${ids.bd_808}/?fields=pack`)).pack).toBe(
      `${s.origin}/apiv2/packs/${s.seeded.packId}/`,
    );
  });

  it('answers from the hot path exactly as the application does, and still refuses bad keys', async () => {
    const path = `/apiv2/sounds/${ids.bd_808}/?fields=id,name,username`;
    const headersOf = (res: Response) =>
      Object.fromEntries(
        [...res.headers].filter(([name]) => !['date', 'connection', 'keep-alive'].includes(name)),
      );
    const init = { headers: { 'X-Request-Id': 'same-id' } };
    const miss = await call(path, init); // rendered by the application, then cached
    const hit = await call(path, init); // served by the hot path
    expect(hit.status).toBe(miss.status);
    expect(headersOf(hit)).toEqual(headersOf(miss));
    expect(await hit.text()).toBe(await miss.text());
    const viaHeader = await fetch(`${s.origin}${path}`, { headers: { Authorization: `Token ${key}` } });
    expect(viaHeader.status).toBe(200);
    await expectError(path, 401, 'Authentication credentials were not provided.', { noKey: true });
    const wrong = await fetch(`${s.origin}${path}`, { headers: { Authorization: 'Token nope' } });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ detail: 'Invalid token' });
  });

  it('answers 405 to a wrong method', async () => {
    const res = await call(`/apiv2/sounds/${ids.bd_808}/`, { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(await res.json()).toEqual({ detail: 'Method "DELETE" not allowed.' });
  });
});

describe('analysis', () => {
  it('returns the descriptors and one vector per similarity space, filtered by fields', async () => {
    const all = await json(`/apiv2/sounds/${ids.bd_808}/analysis/`);
    expect(typeof all.spectral_centroid).toBe('number');
    expect(all.freesound_classic).toHaveLength(100);
    expect(await json(`/apiv2/sounds/${ids.bd_808}/analysis/?fields=bpm,pitch`)).toEqual({
      bpm: all.bpm,
      pitch: all.pitch,
    });
  });
  it('answers 404 for a sound without analysis', async () => {
    await expectError(`/apiv2/sounds/${ids.perc_snap}/analysis/`, 404);
  });
});

describe('similar sounds', () => {
  it('lists the other analyzed sounds, most similar first, never the sound itself', async () => {
    const page = await json(`/apiv2/sounds/${ids.bd_808}/similar/?fields=id,score`);
    const analyzed = Object.keys(ids).filter((k) => !['hat_sci', 'perc_snap'].includes(k)).length;
    expect(page.count).toBe(analyzed - 1);
    const got = page.results.map((r: Json) => r.id);
    expect(got).not.toContain(ids.bd_808);
    const scores = page.results.map((r: Json) => r.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(scores.every((x: number) => x >= 0 && x <= 1)).toBe(true);
  });
  it('adds score only when asked, pages with absolute links', async () => {
    const page = await json(`/apiv2/sounds/${ids.bd_808}/similar/?page_size=2`);
    expect(Object.keys(page.results[0])).toEqual(['id', 'name', 'tags', 'username', 'license']);
    expect(page.next).toBe(`${s.origin}/apiv2/sounds/${ids.bd_808}/similar/?page_size=2&token=${key}&page=2`);
    const second = (await (await fetch(page.next)).json()) as Json;
    expect(second.previous).toBe(`${s.origin}/apiv2/sounds/${ids.bd_808}/similar/?page_size=2&token=${key}`);
    await expectError(`/apiv2/sounds/${ids.bd_808}/similar/?page=99`, 404, 'Not found');
  });
  it('refuses an unknown space (400) and an unknown or unanalyzed sound (404)', async () => {
    await expectError(
      `/apiv2/sounds/${ids.bd_808}/similar/?similarity_space=laion_nope`,
      400,
      /similarity_space/,
    );
    await expectError(`/apiv2/sounds/${ids.perc_snap}/similar/`, 404);
    await expectError('/apiv2/sounds/999999/similar/', 404);
  });
});

describe('comments', () => {
  it('lists comments newest first with list paging', async () => {
    const page = await json(`/apiv2/sounds/${ids.bd_808}/comments/?page_size=2`);
    expect(page.count).toBe(3);
    expect(page.results.map((c: Json) => c.comment)).toEqual(['Thanks!', 'Used it in a track.']);
    expect(page.results[0]).toEqual({
      username: 'alice',
      comment: 'Thanks!',
      created: '2024-01-15T10:22:00.123',
    });
    const last = await json(`/apiv2/sounds/${ids.bd_808}/comments/?page_size=2&page=last`);
    expect(last.results.map((c: Json) => c.comment)).toEqual(['Great kick!']);
    await expectError(`/apiv2/sounds/${ids.bd_808}/comments/?page=9`, 404, 'Invalid page.');
  });
});

describe('users and packs', () => {
  it('shows a user, case-insensitively, with links to sounds and packs', async () => {
    const user = await json('/apiv2/users/ALICE/');
    expect(user).toMatchObject({
      username: 'alice',
      about: 'I record drums.',
      homepage: 'https://alice.example.org',
      avatar: null,
      date_joined: '2024-01-13T10:00:00',
      num_sounds: 4,
      num_packs: 1, // the seeded 'Empty' pack holds no public sound: it is not public
      sounds: `${s.origin}/apiv2/users/alice/sounds/`,
    });
    await expectError('/apiv2/users/nobody/', 404);
  });
  it("counts a user's comments on other people's sounds only (num_comments)", async () => {
    // The seed: bob comments twice on alice's kick, alice once on her own.
    expect((await json('/apiv2/users/bob/')).num_comments).toBe(2);
    expect((await json('/apiv2/users/alice/')).num_comments).toBe(0);
  });
  it("lists a user's visible sounds newest first and their packs", async () => {
    const sounds = await json('/apiv2/users/bob/sounds/?fields=id');
    expect(sounds.results.map((r: Json) => r.id)).toEqual([
      ids.perc_snap,
      ids.tabla_ke1,
      ids.elec_twip,
      ids.elec_wood,
    ]);
    const packs = await json('/apiv2/users/alice/packs/');
    expect(packs.results.map((p: Json) => p.name)).toEqual(['Drums']); // not 'Empty': no public sound
    expect(packs.results[0]).toMatchObject({ id: s.seeded.packId, num_sounds: 3, username: 'alice' });
    await expectError('/apiv2/users/nobody/sounds/', 404);
  });
  it('shows a pack and its sounds', async () => {
    const pack = await json(`/apiv2/packs/${s.seeded.packId}/`);
    expect(Object.keys(pack)).toEqual([
      'id',
      'url',
      'description',
      'created',
      'name',
      'username',
      'num_sounds',
      'sounds',
      'num_downloads',
    ]);
    const sounds = await json(`/apiv2/packs/${s.seeded.packId}/sounds/?fields=id,name`);
    expect(sounds.results).toEqual([
      { id: ids.hat_cab, name: 'Cabasa hat' },
      { id: ids.bd_fat, name: 'Fat kick' },
      { id: ids.bd_808, name: 'Kick 808' },
    ]);
    await expectError('/apiv2/packs/999/', 404);
    await expectError('/apiv2/packs/999/sounds/', 404);
  });
});

describe('text search', () => {
  it('finds by words, at /search/ and /search/text/, GET and POST', async () => {
    for (const [path, method] of [
      ['/apiv2/search/', 'GET'],
      ['/apiv2/search/text/', 'GET'],
      ['/apiv2/search/', 'POST'],
    ]) {
      const res = await call(`${path}?query=kick&fields=id`, { method });
      expect(res.status).toBe(200);
      const body = (await res.json()) as Json;
      expect(body.results.map((r: Json) => r.id).sort()).toEqual(
        [ids.bd_808, ids.bd_fat, ids.bd_klub].sort(),
      );
    }
  });
  it('returns every visible sound for an empty query, never unapproved ones', async () => {
    const all = await json('/apiv2/search/?query=&fields=id&page_size=150');
    expect(all.count).toBe(Object.keys(ids).length - 1);
    expect(all.results.map((r: Json) => r.id)).not.toContain(ids.hat_sci);
  });
  it('applies filter and sort', async () => {
    const drums = await json('/apiv2/search/?filter=tag:drum username:alice&sort=created_asc&fields=id');
    expect(drums.results.map((r: Json) => r.id)).toEqual([ids.bd_808, ids.bd_fat, ids.hat_cab, ids.bd_klub]);
  });
  it('refuses a blank or malformed filter with 400', async () => {
    await expectError('/apiv2/search/?filter=', 400, /filter/);
    await expectError('/apiv2/search/?filter=nosuchfield:3', 400, /filter/);
  });
  it('pages at most 150 per page; page 0 and page_size 0 are 404', async () => {
    const page = await json('/apiv2/search/?page_size=2&fields=id');
    expect(page.results).toHaveLength(2);
    expect(page.next).toContain('page=2');
    await expectError('/apiv2/search/?page=0', 404);
    await expectError('/apiv2/search/?page_size=0', 404);
  });
  it('groups by pack with n_from_same_pack and a link to the pack', async () => {
    const grouped = await json('/apiv2/search/?filter=username:alice&group_by_pack=1&fields=id');
    expect(grouped.count).toBe(2);
    const inPack = grouped.results.find((r: Json) => r.n_from_same_pack !== undefined);
    expect(inPack.n_from_same_pack).toBe(3);
    const more = (await (await fetch(inPack.more_from_same_pack)).json()) as Json;
    expect(more.count).toBe(3);
  });
  it('sorts by similarity with similar_to (target excluded, filter applied)', async () => {
    const similar = await json(`/apiv2/search/?similar_to=${ids.bd_808}&fields=id,score`);
    const direct = await json(`/apiv2/sounds/${ids.bd_808}/similar/?fields=id,score`);
    expect(similar.results).toEqual(direct.results);
    const filtered = await json(`/apiv2/search/?similar_to=${ids.bd_808}&filter=username:bob&fields=id`);
    expect(filtered.results.map((r: Json) => r.id).sort()).toEqual(
      [ids.elec_twip, ids.elec_wood, ids.tabla_ke1].sort(),
    );
    await expectError('/apiv2/search/?similar_to=abc', 400, /similar_to/);
    await expectError('/apiv2/search/?similar_to=[1,2]', 400);
  });
});

describe('content search', () => {
  it('sorts by closeness to descriptor values', async () => {
    const res = await json('/apiv2/search/content/?target=lowlevel.spectral_centroid.mean:200&fields=id');
    const centroids = await Promise.all(
      res.results.map(
        async (r: Json) =>
          (await json(`/apiv2/sounds/${r.id}/analysis/?fields=spectral_centroid`)).spectral_centroid,
      ),
    );
    const distances = centroids.map((c: number) => Math.abs(c - 200));
    expect([...distances].sort((a, b) => a - b)).toEqual(distances);
    expect(res.count).toBe(7);
  });
  it('takes a sound id as target and a descriptors filter', async () => {
    const bySound = await json(`/apiv2/search/content/?target=${ids.bd_808}&fields=id`);
    expect(bySound.results.length).toBeGreaterThan(0);
    const filtered = await json(
      '/apiv2/search/content/?descriptors_filter=lowlevel.spectral_centroid.mean:[* TO 1000]&fields=id',
    );
    expect(filtered.count).toBeGreaterThan(0);
    expect(filtered.count).toBeLessThan(7);
  });
  it('needs a target or a descriptors_filter, and refuses a bad target', async () => {
    await expectError('/apiv2/search/content/', 400);
    await expectError('/apiv2/search/content/?target=', 400, /target/);
    await expectError('/apiv2/search/content/?target=lowlevel.spectral_centroid.mean:abc', 400);
  });
});

describe('combined search', () => {
  it('answers results and more, never a count', async () => {
    const res = await json(
      '/apiv2/search/combined/?target=lowlevel.spectral_centroid.mean:200&filter=tag:kick&fields=id&page_size=2',
    );
    expect(Object.keys(res).sort()).toEqual(['more', 'results']);
    expect(res.results).toHaveLength(2);
    expect(res.more).toContain('page=2');
    const rest = (await (await fetch(res.more)).json()) as Json;
    expect(rest.results).toHaveLength(1);
    expect(rest.more).toBeNull();
  });
  it('enforces rules 1–3', async () => {
    await expectError('/apiv2/search/combined/?filter=tag:kick', 400); // neither query nor target
    await expectError('/apiv2/search/combined/?target=lowlevel.spectral_centroid.mean:200', 400); // no filter
    await expectError(
      '/apiv2/search/combined/?query=kick&target=lowlevel.spectral_centroid.mean:200&filter=tag:drum',
      400,
    );
    const ok = await json(
      '/apiv2/search/combined/?query=kick&descriptors_filter=lowlevel.spectral_centroid.mean:[0 TO 100000]&fields=id',
    );
    expect(ok.results.map((r: Json) => r.id).sort()).toEqual([ids.bd_808, ids.bd_fat, ids.bd_klub].sort());
  });
});

describe('files', () => {
  it('serves previews without a credential, with caching headers and byte ranges', async () => {
    const sound = await json(`/apiv2/sounds/${ids.bd_808}/?fields=previews,images`);
    const url = sound.previews['preview-hq-mp3'];
    const full = await fetch(url);
    expect(full.status).toBe(200);
    expect(full.headers.get('content-type')).toBe('audio/mpeg');
    expect(full.headers.get('cache-control')).toMatch(/max-age/);
    const bytes = new Uint8Array(await full.arrayBuffer());
    expect(bytes.length).toBeGreaterThan(1000);
    const part = await fetch(url, { headers: { Range: 'bytes=10-19' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 10-19/${bytes.length}`);
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(bytes.slice(10, 20));
    const tail = await fetch(url, { headers: { Range: 'bytes=-5' } });
    expect(new Uint8Array(await tail.arrayBuffer())).toEqual(bytes.slice(-5));
    expect((await fetch(url, { headers: { Range: `bytes=${bytes.length}-` } })).status).toBe(416);
    const again = await fetch(url, { headers: { 'If-None-Match': String(full.headers.get('etag')) } });
    expect(again.status).toBe(304);
    const png = await fetch(sound.images.waveform_m);
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(
      Buffer.from(await png.arrayBuffer())
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
  });
  it('serves the analysis files and hides files of unapproved sounds', async () => {
    const sound = await json(`/apiv2/sounds/${ids.bd_808}/?fields=analysis_files`);
    for (const url of sound.analysis_files) expect((await fetch(url)).status).toBe(200);
    expect((await fetch(`${s.origin}/media/sounds/${ids.hat_sci}/preview-hq.mp3`)).status).toBe(404);
    expect((await fetch(`${s.origin}/media/sounds/${ids.bd_808}/secret.txt`)).status).toBe(404);
  });
});

describe('OpenAPI document', () => {
  it('validates and describes every version 2 GET path', async () => {
    const res = await fetch(`${s.origin}/apiv2/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Json;
    await SwaggerParser.validate(structuredClone(doc) as never);
    for (const path of [
      '/apiv2/search/',
      '/apiv2/search/text/',
      '/apiv2/search/content/',
      '/apiv2/search/combined/',
      '/apiv2/sounds/{sound_id}/',
      '/apiv2/sounds/{sound_id}/analysis/',
      '/apiv2/sounds/{sound_id}/similar/',
      '/apiv2/sounds/{sound_id}/comments/',
      '/apiv2/users/{username}/',
      '/apiv2/users/{username}/sounds/',
      '/apiv2/users/{username}/packs/',
      '/apiv2/packs/{pack_id}/',
      '/apiv2/packs/{pack_id}/sounds/',
    ]) {
      expect(doc.paths[path]?.get, path).toBeDefined();
    }
  });
});

describe('variant A', () => {
  it('shows category as a pair, analysis on request, analysis links, and no variant-B-only fields', async () => {
    const sound = await json(`/apiv2/sounds/${ids.bd_808}/`, { origin: variantA.origin });
    expect(sound.category).toEqual(['Instrument samples', 'Percussion']);
    for (const absent of [
      'subcategory',
      'is_geotagged',
      'md5',
      'is_remix',
      'was_remixed',
      'is_explicit',
      'analysis_files',
    ]) {
      expect(sound).not.toHaveProperty(absent);
    }
    expect(sound.analysis).toBeNull();
    expect(sound.analysis_stats).toBe(`${variantA.origin}/apiv2/sounds/${ids.bd_808}/analysis/`);
    const withDescriptors = await json(
      `/apiv2/sounds/${ids.bd_808}/?fields=id,analysis&descriptors=lowlevel.spectral_centroid.mean,rhythm.bpm,no.such`,
      { origin: variantA.origin },
    );
    expect(Object.keys(withDescriptors.analysis).sort()).toEqual(['lowlevel', 'rhythm']);
    expect(typeof withDescriptors.analysis.lowlevel.spectral_centroid.mean).toBe('number');
  });
  it('serves the available descriptors (variant A only)', async () => {
    const names = await json('/apiv2/descriptors/', { origin: variantA.origin });
    expect(names['fixed-length']['one-dimensional']).toContain('lowlevel.spectral_centroid.mean');
    expect(names['fixed-length']['multi-dimensional']).toContain('lowlevel.mfcc.mean');
    expect(Array.isArray(names['variable-length'])).toBe(true);
    await expectError('/apiv2/descriptors/', 404);
  });
});

// Runs last: it adds a sound to the catalogue.
describe('similarity refresh', () => {
  it('picks up a sound the pipeline added after start, without a full reload', async () => {
    const db = s.catalogue.db;
    const twin = await db
      .insertInto('sounds')
      .values({
        user_id: s.seeded.userIds.bob,
        name: 'Kick twin',
        license: 'Attribution',
        original_filename: 'twin.wav',
        original_path: '',
        moderation_state: 'ok',
        processing_state: 'Processed',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const source = await db
      .selectFrom('sound_similarity_vectors')
      .where('sound_id', '=', ids.bd_808)
      .select(['space', 'vector'])
      .executeTakeFirstOrThrow();
    await db
      .insertInto('sound_similarity_vectors')
      .values({
        sound_id: twin.id,
        space: source.space,
        vector: source.vector,
        updated: new Date(Date.now() + 1000),
      })
      .execute();
    const before = s.deps.similarity.indexes.get(source.space);
    await s.deps.similarity.refresh();
    expect(s.deps.similarity.indexes.get(source.space)).toBe(before);
    const page = await json(`/apiv2/sounds/${ids.bd_808}/similar/?fields=id,score&page_size=1`);
    expect(page.results[0].id).toBe(twin.id);
    expect(page.results[0].score).toBeCloseTo(1, 5);
  });
});
