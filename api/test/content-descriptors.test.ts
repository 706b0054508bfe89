import { createLogger, loadConfig } from '@earshot/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAppDeps, type WiredAppDeps } from '../src/build-deps.ts';
import { type RunningServer, startServer } from '../src/server.ts';
import { addAnalyzedSounds } from './support/analyzed.ts';
import { startTestServer, type TestServer } from './support/server.ts';

/**
 * Content search and its filters over sounds that earshot's own analyzer analyzed (issue 35,
 * defects 1, 2 and 9), so the descriptor table the engine checks names against is full: the
 * contract's non-numeric descriptors (`tonal.key_key:"C"`), the meaning of a variant-B name in a
 * target, and the messages of a target that is not a number. Variant B on the test server, variant A
 * on a second server over the same catalogue.
 */

type Json = Record<string, any>;

let s: TestServer;
let a: { server: RunningServer; deps: WiredAppDeps };
let ids: Record<string, number>;

const FIXTURES = [
  { fixture: 'cadence-c-major', name: 'Cadence in C major' },
  { fixture: 'cadence-fs-major', name: 'Cadence in F sharp major' },
  { fixture: 'triad-a-minor', name: 'A minor triad' },
  { fixture: 'harmonic-a4', name: 'Harmonic tone A4' },
  { fixture: 'sine-a5', name: 'Sine A5' },
  { fixture: 'drums-170bpm', name: 'Drums at 170 bpm' },
];

beforeAll(async () => {
  s = await startTestServer();
  ids = await addAnalyzedSounds(s, FIXTURES);
  const config = loadConfig({ PORT: '0', DATA_DIR: s.dataDir, LOG_LEVEL: 'silent', API_VARIANT: 'A' });
  const deps = await buildAppDeps({
    config,
    logger: createLogger('silent'),
    catalogue: s.catalogue,
    version: 'test',
    similarityRefreshMs: 0,
    similaritySnapshots: false,
  });
  a = { server: await startServer(deps), deps };
}, 180_000);
afterAll(async () => {
  await a?.server.close();
  await a?.deps.dispose();
  await s?.stop();
});

function url(origin: string, path: string, params: Record<string, string>): string {
  const u = new URL(`${origin}${path}`);
  u.searchParams.set('token', s.seeded.apiKey);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
}

async function get(origin: string, path: string, params: Record<string, string> = {}) {
  const res = await fetch(url(origin, path, params));
  return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as Json };
}

async function ok(origin: string, path: string, params: Record<string, string> = {}): Promise<Json> {
  const res = await get(origin, path, params);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

const idsOf = (page: Json): number[] => page.results.map((r: Json) => r.id);
const v1IdsOf = (page: Json): number[] => page.sounds.map((r: Json) => r.id);

describe('defect 1: non-numeric descriptors in content filters (analyzed sounds)', () => {
  it('descriptors_filter=tonal.key_key:"C" AND tonal.key_scale:"major" finds the C major cadence (variant B)', async () => {
    const page = await ok(s.origin, '/apiv2/search/content/', {
      descriptors_filter: 'tonal.key_key:"C" AND tonal.key_scale:"major"',
      fields: 'id',
      page_size: '150',
    });
    expect(idsOf(page)).toContain(ids['cadence-c-major']);
    expect(idsOf(page)).not.toContain(ids['cadence-fs-major']);
    expect(idsOf(page)).not.toContain(ids['triad-a-minor']);
  });

  it('`sharp` stands for "#": tonal.key_key:"Fsharp" finds the F sharp cadence (variant A)', async () => {
    const page = await ok(a.server.origin, '/apiv2/search/content/', {
      descriptors_filter: 'tonal.key_key:"Fsharp" AND tonal.key_scale:"major"',
      fields: 'id',
      page_size: '150',
    });
    expect(idsOf(page)).toContain(ids['cadence-fs-major']);
    expect(idsOf(page)).not.toContain(ids['cadence-c-major']);
  });

  it('the chord descriptors filter too, combined with a numeric range', async () => {
    const page = await ok(s.origin, '/apiv2/search/content/', {
      descriptors_filter:
        'tonal.chords_key:"A" AND tonal.chords_scale:"minor" AND lowlevel.pitch.mean:[* TO *]',
      fields: 'id',
      page_size: '150',
    });
    expect(idsOf(page)).toContain(ids['triad-a-minor']);
    expect(idsOf(page)).not.toContain(ids['cadence-c-major']);
  });

  it('v1 f=.tonal.key_key:"Fsharp" and the contract\'s AND form answer, in id order without a target', async () => {
    const sharp = await ok(s.origin, '/api/sounds/content_search/', {
      f: '.tonal.key_key:"Fsharp"',
      fields: 'id',
      sounds_per_page: '100',
    });
    expect(v1IdsOf(sharp)).toContain(ids['cadence-fs-major']);
    expect(v1IdsOf(sharp)).not.toContain(ids['cadence-c-major']);
    const both = await ok(s.origin, '/api/sounds/content_search/', {
      f: '.tonal.key_key:"C" AND .tonal.key_scale:"major"',
      fields: 'id',
      sounds_per_page: '100',
    });
    expect(v1IdsOf(both)).toContain(ids['cadence-c-major']);
  });

  it('an unknown dotted name is still a 400 naming it, now that the table is full', async () => {
    const res = await get(s.origin, '/apiv2/search/content/', { descriptors_filter: 'tonal.key_kee:"C"' });
    expect(res.status).toBe(400);
    expect(String(res.body.detail)).toMatch(/unknown descriptor "tonal\.key_kee".*tonal\.key_key/);
  });

  it("variant A's /apiv2/descriptors/ lists the key and chord names as one-dimensional, and only dotted names", async () => {
    const names = await ok(a.server.origin, '/apiv2/descriptors/');
    const one: string[] = names['fixed-length']['one-dimensional'];
    for (const name of ['tonal.key_key', 'tonal.key_scale', 'tonal.chords_key', 'tonal.chords_scale']) {
      expect(one).toContain(name);
    }
    const all = [...one, ...names['fixed-length']['multi-dimensional'], ...names['variable-length']];
    expect(all.filter((n) => !n.includes('.'))).toEqual([]);
  });
});

describe('defect 2: a variant-B name in a target means the variant-B value (analyzed sounds)', () => {
  it("target=pitch:<the 880 Hz sine's B pitch> puts the sine first", async () => {
    // The reference pitch track's mean over every frame (issue 37), edge frames included.
    const analysis = await ok(s.origin, `/apiv2/sounds/${ids['sine-a5']}/analysis/`);
    expect(analysis.pitch as number).toBeGreaterThan(0);
    const page = await ok(s.origin, '/apiv2/search/content/', {
      target: `pitch:${analysis.pitch}`,
      fields: 'id,pitch',
      page_size: '5',
    });
    expect(page.results[0].id).toBe(ids['sine-a5']);
    expect(page.results[0].pitch).toBe(analysis.pitch);
  });

  it.each([
    'pitch',
    'pitch_min',
    'pitch_max',
    'pitch_var',
    'bpm',
    'bpm_confidence',
    'duration_effective',
    'spectral_centroid',
    'brightness',
  ])('target=%s ranks by the value the sound record shows under that name', async (name) => {
    const analysis = await ok(s.origin, `/apiv2/sounds/${ids['harmonic-a4']}/analysis/`);
    const value = analysis[name] as number;
    expect(typeof value).toBe('number');
    const page = await ok(s.origin, '/apiv2/search/content/', {
      target: `${name}:${value}`,
      fields: `id,${name}`,
      page_size: '150',
    });
    const distances = page.results
      .filter((r: Json) => typeof r[name] === 'number')
      .map((r: Json) => Math.abs((r[name] as number) - value));
    expect(distances.length).toBeGreaterThanOrEqual(FIXTURES.length);
    expect(distances[0]).toBeLessThan(1e-6);
    // Shown values are rounded to 3 decimals: allow that much out of order.
    for (let i = 1; i < distances.length; i++)
      expect(distances[i]).toBeGreaterThanOrEqual(distances[i - 1] - 1e-3);
  });
});

describe('defect 9: a quoted target value is named whole in the error', () => {
  it.each([
    ['tonality:"C major"', /Invalid target value "C major" for tonality: only numbers are allowed/],
    ['bpm:120 tonality:"F# minor"', /Invalid target value "F# minor" for tonality/],
    ['tonal.key_key:"C"', /Invalid target value "C" for tonal\.key_key/],
  ])('target=%s', async (target, detail) => {
    const res = await get(s.origin, '/apiv2/search/content/', { target });
    expect(res.status).toBe(400);
    expect(String(res.body.detail)).toMatch(detail);
  });

  it('an unclosed quote says so', async () => {
    const res = await get(s.origin, '/apiv2/search/content/', { target: 'tonality:"C major' });
    expect(res.status).toBe(400);
    expect(String(res.body.detail)).toMatch(/quote/);
  });
});
