import { testService } from '@earshot/common/testing';
import { describe, expect, it } from 'vitest';
import { SEED_NOW, seedSearchCatalogue, testBackends, useSearchCatalogue } from '../testing/index.ts';
import { compileFilter } from './compile-filter.ts';
import { SearchSyntaxError } from './errors.ts';
import { searchSounds } from './execute.ts';
import { parseFilter } from './filter-parser.ts';
import { parseTextQuery } from './query-parser.ts';

/** Deterministic generator (mulberry32), so a failing case can be replayed from its seed. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)];
  return { next, int, pick };
}

const VALID = [
  'tag:guitar',
  'type:(wav OR aiff)',
  'tag:bass tag:drum',
  'tag:bass description:"heavy distortion"',
  'is_geotagged:true tag:field-recording duration:[60 TO 120]',
  'duration:[0.1 TO 0.3] avg_rating:[3 TO *]',
  'geotag:"Intersects(-74.093 41.042 -69.347 44.558)"',
  '(geotag:"Intersects(-80 40 -60 50)" OR geotag:"Intersects(60 40 100 50)") AND tag:field-recording',
  '{!geofilt sfield=geotag pt=41.3833,2.1833 d=10} tag:barcelona',
  'created:[NOW-1YEAR/DAY TO NOW/DAY+1DAY]',
  'created:[1976-03-06T23:59:59.999Z TO 1976-03-06T23:59:59.999Z+1YEAR]',
  'tag:drum NOT tag:snare -tag:kick',
  'bpm:[119 TO 121] loopable:true tonality:"Asharp minor"',
  'id:{102 TO 104} comment:thunder pack_grouping:"11_Drum Kit"',
];
const DESCRIPTOR_VALID = [
  'lowlevel.mfcc.mean[1]:[17 TO 20] AND lowlevel.mfcc.mean[4]:[0 TO 20]',
  '(tonal.key_key:"C" AND tonal.key_scale:"major") OR (tonal.key_key:"A" AND tonal.key_scale:"minor")',
  'tonal.key_key:"C" tonal.key_scale="major" tonal.key_strength:[0.8 TO *]',
];
const PIECES = [
  'tag',
  'duration',
  'created',
  'geotag',
  'username',
  'id',
  'bpm',
  'foo',
  'lowlevel.pitch.mean',
  'comment',
  ':',
  ':',
  ':',
  '"',
  '"',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  ' TO ',
  ' to ',
  'AND',
  'OR',
  'NOT',
  '&&',
  '||',
  '!',
  '-',
  '+',
  '*',
  '\\',
  ' ',
  ' ',
  ' ',
  'NOW',
  '/DAY',
  '+1YEAR',
  '-3MONTHS',
  '2014-04-16',
  '1e308',
  '-1',
  '0.5',
  '99999999999999999999',
  "'",
  "';",
  '--',
  '/*',
  '$1',
  '%',
  '_',
  '\u0000',
  'é',
  '🎵',
  'Intersects(1 2 3 4)',
  '{!geofilt sfield=geotag pt=1,2 d=5}',
  'sharp',
  'true',
  'NaN',
  'Infinity',
  '[* TO *]',
  '; DROP TABLE sounds',
];

function randomFilter(r: ReturnType<typeof prng>): string {
  const n = 1 + r.int(12);
  let s = '';
  for (let i = 0; i < n; i++) s += r.pick(PIECES);
  return s;
}

function mutate(r: ReturnType<typeof prng>, text: string): string {
  let s = text;
  const edits = 1 + r.int(3);
  for (let i = 0; i < edits; i++) {
    const at = r.int(s.length + 1);
    switch (r.int(4)) {
      case 0:
        s = s.slice(0, at) + s.slice(at + 1 + r.int(3));
        break;
      case 1:
        s = s.slice(0, at) + r.pick(PIECES) + s.slice(at);
        break;
      case 2:
        s = s.slice(0, at) + s.slice(r.int(s.length)) + s.slice(at);
        break;
      default:
        s = s.slice(0, at) + String.fromCharCode(32 + r.int(95)) + s.slice(at + 1);
    }
  }
  return s;
}

/** Only SearchSyntaxError may escape; the returned list holds anything else (should stay empty). */
function collectUnexpected(inputs: string[], run: (s: string) => unknown): string[] {
  const bad: string[] = [];
  for (const input of inputs) {
    try {
      run(input);
    } catch (e) {
      if (!(e instanceof SearchSyntaxError)) bad.push(`${JSON.stringify(input)}: ${String(e)}`);
    }
  }
  return bad;
}

function corpus(seed: number, count: number): { filters: string[]; descriptors: string[] } {
  const r = prng(seed);
  const filters: string[] = [];
  const descriptors: string[] = [];
  for (let i = 0; i < count; i++) {
    const kind = r.int(3);
    if (kind === 0) filters.push(randomFilter(r));
    else if (kind === 1) filters.push(mutate(r, r.pick(VALID)));
    else descriptors.push(r.next() < 0.5 ? mutate(r, r.pick(DESCRIPTOR_VALID)) : randomFilter(r));
  }
  return { filters, descriptors };
}

describe('fuzzing the parsers', () => {
  it('30,000 random and mutated filters: only typed errors, every accepted one compiles', () => {
    const { filters, descriptors } = corpus(20261122, 30_000);
    let accepted = 0;
    const compile = (mode: 'filter' | 'descriptors') => (s: string) => {
      const ast = parseFilter(s, {
        now: SEED_NOW,
        mode,
        parameter: mode === 'filter' ? 'filter' : 'descriptors_filter',
      });
      compileFilter(ast);
      accepted++;
    };
    expect(collectUnexpected(filters, compile('filter'))).toEqual([]);
    expect(collectUnexpected(descriptors, compile('descriptors'))).toEqual([]);
    // The corpus must exercise both paths, or the test proves nothing.
    expect(accepted).toBeGreaterThan(1000);
    expect(accepted).toBeLessThan(filters.length + descriptors.length);
  });

  it('10,000 random queries parse without throwing anything but typed errors', () => {
    const r = prng(7);
    const queries = Array.from({ length: 10_000 }, () =>
      r.next() < 0.5 ? randomFilter(r) : mutate(r, '"bass drum" -double +kick'),
    );
    expect(collectUnexpected(queries, (q) => parseTextQuery(q))).toEqual([]);
  });

  it('errors carry a position inside the text', () => {
    const { filters } = corpus(99, 3000);
    for (const f of filters) {
      try {
        parseFilter(f, { now: SEED_NOW });
      } catch (e) {
        const pos = (e as SearchSyntaxError).position;
        if (pos !== undefined) expect(pos).toBeLessThanOrEqual(f.length);
      }
    }
  });
});

const postgresUrl = await testService('postgres');

describe.each(testBackends(postgresUrl))('fuzzing the engine on %s', (backend) => {
  const t = useSearchCatalogue(backend, postgresUrl, seedSearchCatalogue);

  it('no SQL error reaches the caller (bounded sample of the corpus, filters and queries)', async () => {
    const { filters, descriptors } = corpus(4242, 6000);
    const r = prng(5);
    const requests = [
      ...filters.slice(0, 400).map((filter) => ({ filter })),
      ...descriptors.slice(0, 200).map((descriptorsFilter) => ({ descriptorsFilter })),
      ...filters
        .slice(400, 600)
        .map((query) => ({ query, weights: r.next() < 0.3 ? 'tag:1,name:2' : undefined })),
    ];
    const bad: string[] = [];
    let ran = 0;
    const deadline = Date.now() + 8_000;
    for (const req of requests) {
      if (Date.now() > deadline) break;
      try {
        await searchSounds(t.catalogue, { ...req, now: SEED_NOW, limit: 5 });
        ran++;
      } catch (e) {
        if (!(e instanceof SearchSyntaxError))
          bad.push(`${JSON.stringify(req)}: ${String(e)} ${String((e as Error).cause ?? '')}`);
      }
    }
    expect(bad).toEqual([]);
    expect(ran).toBeGreaterThan(100);
  });
});
