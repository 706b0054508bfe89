import { describe, expect, it } from 'vitest';
import { fuzzBackends } from './fuzz/backends.ts';
import { useTestServerOn } from './support/backend-server.ts';

/**
 * Sort by target values (issue 35, Freesound's API since December 2025) through the API, on the
 * seeded catalogue (seven analyzed visible sounds and one, "Finger snap", not analyzed), on the
 * embedded catalogue and on the PostgreSQL server (with Redis). The expected order is computed here from the
 * descriptor values the same answer returns.
 */

type Json = Record<string, any>;

const backends = await fuzzBackends();

describe.each(backends)('sort by target values on $name', (backend) => {
  const t = useTestServerOn(backend);

  async function get(path: string, params: Record<string, string>, auth: 'query' | 'header' = 'query') {
    const u = new URL(`${t.server.origin}${path}`);
    for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
    if (auth === 'query') u.searchParams.set('token', t.server.seeded.apiKey);
    const headers: Record<string, string> =
      auth === 'header' ? { Authorization: `Token ${t.server.seeded.apiKey}` } : {};
    const res = await fetch(u, { headers });
    return { status: res.status, body: (await res.json()) as Json };
  }
  async function ok(path: string, params: Record<string, string>): Promise<Json> {
    const res = await get(path, params);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  }

  it('orders by the distance to one value and returns it as distance_to_target', async () => {
    const page = await ok('/apiv2/search/', { sort: 'bpm:120', fields: 'id,name,bpm,distance_to_target' });
    expect(page.count).toBe(8);
    const results = page.results as Json[];
    const analyzed = results.filter((r) => r.bpm !== null);
    expect(analyzed).toHaveLength(7);
    for (const r of analyzed) expect(r.distance_to_target).toBeCloseTo(Math.abs(r.bpm - 120), 9);
    const distances = analyzed.map((r) => r.distance_to_target as number);
    expect(distances).toEqual([...distances].sort((a, b) => a - b));
    // The sound without analysis has no distance and comes last.
    expect(results.at(-1)).toMatchObject({ name: 'Finger snap', bpm: null, distance_to_target: null });
  });

  it('several targets: Euclidean distance of the raw values; combines with query and filter', async () => {
    const page = await ok('/apiv2/search/', {
      query: 'kick',
      filter: 'tag:drum',
      sort: 'spectral_centroid:500,loudness:-20',
      fields: 'id,tags,spectral_centroid,loudness,distance_to_target,score',
    });
    expect(page.count).toBe(3);
    const results = page.results as Json[];
    for (const r of results) {
      expect(r.tags).toContain('drum');
      expect(r.score).toBeGreaterThan(0);
      const expected = Math.hypot(r.spectral_centroid - 500, r.loudness + 20);
      expect(r.distance_to_target).toBeCloseTo(expected, 6);
    }
    const distances = results.map((r) => r.distance_to_target as number);
    expect(distances).toEqual([...distances].sort((a, b) => a - b));
    // The paging links carry the target.
    const first = await ok('/apiv2/search/', { sort: 'bpm:100', page_size: '3', fields: 'id' });
    expect(decodeURIComponent(first.next)).toContain('sort=bpm:100');
    const second = await ok('/apiv2/search/', { sort: 'bpm:100', page_size: '3', page: '2', fields: 'id' });
    const all = await ok('/apiv2/search/', { sort: 'bpm:100', page_size: '6', fields: 'id' });
    expect([...first.results, ...second.results]).toEqual(all.results);
  });

  it('the request a Python client sends (Token header, text search endpoint)', async () => {
    const res = await get(
      '/apiv2/search/',
      { query: 'drum', sort: 'bpm:120', fields: 'id,name,bpm,distance_to_target', page_size: '5' },
      'header',
    );
    expect(res.status).toBe(200);
    expect(res.body.results.length).toBeGreaterThan(0);
    for (const r of res.body.results) expect(r).toHaveProperty('distance_to_target');
  });

  it('distance_to_target is null in another order and absent outside search', async () => {
    const page = await ok('/apiv2/search/', { sort: 'duration_asc', fields: 'id,distance_to_target' });
    expect(page.results.every((r: Json) => r.distance_to_target === null)).toBe(true);
    const sound = await ok(`/apiv2/sounds/${t.server.seeded.ids.bd_808}/`, {});
    expect(sound).not.toHaveProperty('distance_to_target');
    const asked = await ok(`/apiv2/sounds/${t.server.seeded.ids.bd_808}/`, {
      fields: 'id,distance_to_target',
    });
    expect(asked).toEqual({ id: t.server.seeded.ids.bd_808 });
  });

  it('the OpenAPI document describes the target sort, distance_to_target and gen_ai_preference', async () => {
    const doc = (await (await fetch(`${t.server.origin}/apiv2/openapi.json`)).json()) as Json;
    const sort = (doc.paths['/apiv2/search/'].get.parameters as Json[]).find((p) => p.name === 'sort');
    expect(sort?.description).toMatch(/bpm:120,pitch:440.*distance_to_target/);
    // Every schema of a sound (wherever the document puts it) has both fields.
    const sounds: Json[] = [];
    const walk = (node: unknown) => {
      if (!node || typeof node !== 'object') return;
      const o = node as Json;
      if (o.properties?.md5 && o.properties?.previews) sounds.push(o.properties);
      for (const v of Object.values(o)) walk(v);
    };
    walk(doc);
    expect(sounds.length).toBeGreaterThan(0);
    for (const props of sounds) {
      expect(props.distance_to_target.type).toContain('number');
      expect(props.gen_ai_preference.enum).toEqual([
        'no-additional-preferences',
        'open-source-models',
        'noncommercial-open-source-models',
        'no-gen-ai',
      ]);
    }
  });

  it('a bad target is a 400 whose detail names the problem', async () => {
    const refused = async (params: Record<string, string>, detail: RegExp) => {
      const res = await get('/apiv2/search/', params);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(String(res.body.detail)).toMatch(detail);
    };
    await refused({ sort: 'bpm:fast' }, /Invalid sort.*target value of "bpm" must be a number/);
    await refused({ sort: 'tonality:3' }, /"tonality" is not numeric/);
    await refused({ sort: 'bmp:120' }, /did you mean "bpm"/);
    await refused({ sort: 'bpm:120', group_by_pack: '1' }, /does not combine with group_by_pack/);
  });
});
