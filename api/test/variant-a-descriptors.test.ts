import { type AnalysisTree, normalizationRanges, normalizeTree, type VariantATree } from '@earshot/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';

/**
 * Variant A's `normalized=1` (descriptor values scaled over the catalogue's range) and the
 * similar-sounds `descriptors_filter`, against a real server on a seeded embedded catalogue.
 */

type Json = Record<string, any>;

const CENTROID = 'lowlevel.spectral_centroid.mean';

let s: TestServer;
let ids: Record<string, number>;
/** The visible, analyzed sounds' trees by id, as stored. */
let trees: Map<number, AnalysisTree>;

beforeAll(async () => {
  s = await startTestServer({ API_VARIANT: 'A' });
  ids = s.seeded.ids;
  const rows = await s.catalogue.db
    .selectFrom('sound_descriptors as d')
    .innerJoin('sounds as s', 's.id', 'd.sound_id')
    .where('s.moderation_state', '=', 'ok')
    .where('s.processing_state', '=', 'Processed')
    .select(['d.sound_id', 'd.analysis_a'])
    .execute();
  trees = new Map(rows.map((r) => [r.sound_id, r.analysis_a]));
});
afterAll(() => s?.stop());

async function call(path: string): Promise<Response> {
  const url = new URL(`${s.origin}${path}`);
  url.searchParams.set('token', s.seeded.apiKey);
  return fetch(url);
}
async function json(path: string): Promise<Json> {
  const res = await call(path);
  expect(res.status, `${path} → ${res.status}`).toBe(200);
  return (await res.json()) as Json;
}

function centroidOf(tree: AnalysisTree): number {
  return (tree.lowlevel as Json).spectral_centroid.mean as number;
}

/** The visible sounds sorted by spectral centroid, lowest first. */
function byCentroid(): Array<{ id: number; value: number }> {
  return [...trees].map(([id, tree]) => ({ id, value: centroidOf(tree) })).sort((a, b) => a.value - b.value);
}

const normalizedCentroid = async (id: number) =>
  (await json(`/apiv2/sounds/${id}/analysis/?descriptors=${CENTROID}&normalized=1`)).lowlevel
    .spectral_centroid.mean as number;

describe('normalized=1', () => {
  it('scales a descriptor to 0–1 over the visible sounds: the lowest is 0, the highest 1', async () => {
    const sorted = byCentroid();
    expect(sorted.length).toBeGreaterThan(3);
    const low = sorted[0];
    const high = sorted[sorted.length - 1];
    const middle = sorted[1];
    expect(await normalizedCentroid(low.id)).toBe(0);
    expect(await normalizedCentroid(high.id)).toBe(1);
    expect(await normalizedCentroid(middle.id)).toBeCloseTo(
      (middle.value - low.value) / (high.value - low.value),
      9,
    );
    // Without the parameter, the stored value.
    const absolute = await json(`/apiv2/sounds/${middle.id}/analysis/?descriptors=${CENTROID}`);
    expect(absolute.lowlevel.spectral_centroid.mean).toBe(middle.value);
  });

  it('keeps every numeric value of a whole analysis in [0, 1], a vector scaled element by element', async () => {
    const all = await json(`/apiv2/sounds/${ids.bd_808}/analysis/?normalized=1`);
    const numbers: number[] = [];
    const walk = (node: unknown, path: string) => {
      if (typeof node === 'number') numbers.push(node);
      else if (Array.isArray(node)) {
        // Variable-length lists (beat and onset times) are served as they are.
        if (!['rhythm.beats_position', 'rhythm.bpm_intervals', 'rhythm.onset_times'].includes(path))
          for (const v of node) walk(v, path);
      } else if (node && typeof node === 'object')
        for (const [k, v] of Object.entries(node)) walk(v, path ? `${path}.${k}` : k);
    };
    walk(all, '');
    expect(numbers.length).toBeGreaterThan(100);
    expect(numbers.every((n) => n >= 0 && n <= 1)).toBe(true);
    // Exactly core's normalization over the visible sounds' trees, computed here from scratch.
    const visible = [...trees.values()] as VariantATree[];
    expect(all).toEqual(normalizeTree(trees.get(ids.bd_808) as VariantATree, normalizationRanges(visible)));

    // Each mfcc coefficient reaches 0 and 1 on some sound: its own range, not the vector's.
    const mfccs = await Promise.all(
      [...trees.keys()].map(
        async (id) =>
          (await json(`/apiv2/sounds/${id}/analysis/?descriptors=lowlevel.mfcc.mean&normalized=1`)).lowlevel
            .mfcc.mean as number[],
      ),
    );
    for (let i = 0; i < mfccs[0].length; i++) {
      const column = mfccs.map((m) => m[i]);
      expect(Math.min(...column), `mfcc[${i}]`).toBe(0);
      expect(Math.max(...column), `mfcc[${i}]`).toBe(1);
    }
  });

  it("normalizes the `analysis` field of a sound and of a sound list's results", async () => {
    const sorted = byCentroid();
    const high = sorted[sorted.length - 1];
    const sound = await json(
      `/apiv2/sounds/${high.id}/?fields=id,analysis&descriptors=${CENTROID}&normalized=1`,
    );
    expect(sound.analysis.lowlevel.spectral_centroid.mean).toBe(1);
    const page = await json(
      `/apiv2/search/text/?query=&page_size=50&fields=id,analysis&descriptors=${CENTROID}&normalized=1`,
    );
    const values = new Map<number, number>(
      page.results
        .filter((r: Json) => r.analysis)
        .map((r: Json) => [r.id, r.analysis.lowlevel.spectral_centroid.mean]),
    );
    expect(values.get(sorted[0].id)).toBe(0);
    expect(values.get(high.id)).toBe(1);
    expect([...values.values()].every((v) => v >= 0 && v <= 1)).toBe(true);
  });

  it('follows the catalogue: a new sound beyond the range changes the values served afterwards', async () => {
    const sorted = byCentroid();
    const low = sorted[0];
    const high = sorted[sorted.length - 1];
    const list = `/apiv2/search/text/?filter=id:${high.id}&fields=id,analysis&descriptors=${CENTROID}&normalized=1`;
    expect((await json(list)).results[0].analysis.lowlevel.spectral_centroid.mean).toBe(1);

    const db = s.catalogue.db;
    const added = await db
      .insertInto('sounds')
      .values({
        user_id: s.seeded.userIds.bob,
        name: 'Brighter than all',
        license: 'Attribution',
        original_filename: 'bright.wav',
        original_path: '',
        moderation_state: 'ok',
        processing_state: 'Processed',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const tree = structuredClone(trees.get(high.id) as AnalysisTree);
    const brighter = high.value * 2;
    (tree.lowlevel as Json).spectral_centroid.mean = brighter;
    await db
      .insertInto('sound_descriptors')
      .values({ sound_id: added.id, analysis_a: tree, analysis_b: {} } as never)
      .execute();

    const expected = (high.value - low.value) / (brighter - low.value);
    expect(await normalizedCentroid(high.id)).toBeCloseTo(expected, 9);
    expect(await normalizedCentroid(added.id)).toBe(1);
    expect((await json(list)).results[0].analysis.lowlevel.spectral_centroid.mean).toBeCloseTo(expected, 9);
  });
});

describe('similar sounds with descriptors_filter', () => {
  it('returns only the similar sounds that match the filter', async () => {
    const target = ids.bd_808;
    const others = byCentroid().filter((x) => x.id !== target);
    // A threshold between two sounds' values, so some match and some do not.
    const cut = (others[1].value + others[2].value) / 2;
    const matching = others.filter((x) => x.value >= cut).map((x) => x.id);
    const filter = encodeURIComponent(`${CENTROID}:[${cut} TO *]`);
    const page = await json(
      `/apiv2/sounds/${target}/similar/?fields=id&page_size=50&descriptors_filter=${filter}`,
    );
    const got = page.results.map((r: Json) => r.id as number);
    expect(page.count).toBe(matching.length);
    expect(got.sort((a: number, b: number) => a - b)).toEqual([...matching].sort((a, b) => a - b));
    expect(got.length).toBeLessThan(others.length);
  });

  it('answers 400 with a detail for an invalid descriptors_filter', async () => {
    for (const bad of [`${CENTROID}:[1 TO`, ' ']) {
      const res = await call(
        `/apiv2/sounds/${ids.bd_808}/similar/?descriptors_filter=${encodeURIComponent(bad)}`,
      );
      expect(res.status, bad).toBe(400);
      expect((await res.json()) as Json).toHaveProperty('detail');
    }
  });

  it('answers 400 naming an unknown or variable-length descriptor, as content search does', async () => {
    for (const name of ['lowlevel.foo.mean', 'rhythm.onset_times']) {
      const res = await call(
        `/apiv2/sounds/${ids.bd_808}/similar/?descriptors_filter=${encodeURIComponent(`${name}:[1 TO 2]`)}`,
      );
      expect(res.status, name).toBe(400);
      expect(((await res.json()) as Json).detail).toContain(`"${name}"`);
    }
  });
});
