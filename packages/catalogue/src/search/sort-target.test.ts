import { testService } from '@earshot/common/testing';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { SEED_NOW, seedSearchCatalogue, testBackends, useSearchCatalogue } from '../testing/index.ts';
import { SearchSyntaxError } from './errors.ts';
import { searchSounds } from './execute.ts';
import type { SearchRequest } from './prepare.ts';
import { parseSortTarget } from './sort-target.ts';

const postgresUrl = await testService('postgres');

/**
 * The seed's truth: durations 101 0.5 s, 102 0.3, 103 1.2, 104 65, 105 90, 106 4, 107 3; only
 * 101 (bpm 120, loudness -12.5) and 102 (bpm 95, loudness -20) have descriptor values.
 */
describe.each(testBackends(postgresUrl))('sort by target values on %s', (backend) => {
  const t = useSearchCatalogue(backend, postgresUrl, seedSearchCatalogue);
  const search = (req: SearchRequest) => searchSounds(t.catalogue, { now: SEED_NOW, limit: 150, ...req });

  it('orders by the distance to one value; sounds without it follow, by id, with no distance', async () => {
    const r = await search({ sort: 'bpm:100' });
    expect(r.count).toBe(7);
    expect(r.ids).toEqual([102, 101, 103, 104, 105, 106, 107]);
    expect(r.distances).toEqual([5, 20, null, null, null, null, null]);
  });

  it('several values: the Euclidean distance of the raw values, nothing normalized', async () => {
    const r = await search({ sort: 'bpm:100,loudness:-12.5' });
    expect(r.ids.slice(0, 2)).toEqual([102, 101]);
    expect(r.distances?.[0]).toBeCloseTo(Math.sqrt(5 ** 2 + 7.5 ** 2), 9);
    expect(r.distances?.[1]).toBeCloseTo(20, 9);
    // A sound field and a descriptor together.
    const mixed = await search({ sort: 'duration:0.5,bpm:95' });
    expect(mixed.ids.slice(0, 2)).toEqual([102, 101]);
    expect(mixed.distances?.[0]).toBeCloseTo(0.2, 9);
    expect(mixed.distances?.[1]).toBeCloseTo(25, 9);
  });

  it('sound fields alone reach every sound; aliases mean their descriptor', async () => {
    const r = await search({ sort: 'duration:4' });
    expect(r.ids).toEqual([106, 107, 103, 101, 102, 104, 105]);
    expect(r.distances?.[1]).toBeCloseTo(1, 9);
    expect((await search({ sort: 'ac_tempo:95' })).ids[0]).toBe(102);
  });

  it('combines with query and filter, and pages', async () => {
    const drums = await search({ query: 'drum', sort: 'duration:1' });
    expect(drums.ids).toEqual([103, 101, 102]);
    expect(drums.scores.every((s) => s > 0)).toBe(true);
    const rain = await search({ filter: 'tag:rain', sort: 'duration:80' });
    expect(rain.ids).toEqual([105, 104]);
    expect(rain.distances).toEqual([10, 15]);
    const page = await search({ sort: 'duration:4', limit: 2, offset: 2 });
    expect(page.ids).toEqual([103, 101]);
    expect(page.count).toBe(7);
    const past = await search({ sort: 'duration:4', limit: 2, offset: 20 });
    expect(past.ids).toEqual([]);
    expect(past.count).toBe(7);
  });

  it('one descriptor alone walks its index: the same pages as reading every sound, hidden sounds left out', async () => {
    // A hidden sound (pending moderation) with the nearest value of all must not appear.
    await sql`insert into sound_descriptors (sound_id, bpm, loudness) values (108, 100, -15)`.execute(
      t.catalogue.db,
    );
    try {
      for (const sort of ['bpm:100', 'bpm:120', 'bpm:95', 'loudness:-15', 'bpm:-3']) {
        for (const [limit, offset] of [
          [15, 0],
          [1, 0],
          [2, 1],
          [2, 2],
          [3, 3],
          [2, 6],
          [2, 9],
        ]) {
          const walked = await search({ sort, limit, offset });
          // A filter every visible sound passes takes the path that reads every match.
          const read = await search({ sort, limit, offset, filter: 'id:[* TO *]' });
          expect(walked.ids, `${sort} ${limit}@${offset}`).toEqual(read.ids);
          expect(walked.count).toBe(7);
          walked.distances?.forEach((d, i) => {
            if (d === null) expect(read.distances?.[i]).toBeNull();
            else expect(d).toBeCloseTo(read.distances?.[i] as number, 9);
          });
        }
      }
      expect((await search({ sort: 'bpm:100', limit: 2, offset: 1 })).ids).toEqual([101, 103]);
    } finally {
      await sql`delete from sound_descriptors where sound_id = 108`.execute(t.catalogue.db);
    }
  });

  it('a bad target is a SearchSyntaxError naming the problem', async () => {
    const refused = async (req: SearchRequest, reason: RegExp) => {
      const error = await search(req).catch((e) => e);
      expect(error).toBeInstanceOf(SearchSyntaxError);
      expect(error.parameter).toBe('sort');
      expect(error.message).toMatch(reason);
    };
    await refused({ sort: 'bpm:fast' }, /target value of "bpm" must be a number, not "fast"/);
    await refused({ sort: 'tonality:3' }, /"tonality" is not numeric/);
    await refused({ sort: 'bmp:120' }, /not a sound field or descriptor.*did you mean "bpm"/);
    await refused({ sort: 'tag:1' }, /"tag" is not numeric/);
    await refused({ sort: 'bpm:1,ac_tempo:2' }, /"ac_tempo" is named twice/);
    await refused({ sort: 'bpm:120,' }, /"" is not "name:number"/);
    await refused({ sort: 'bpm:120', groupByPack: true }, /does not combine with group_by_pack/);
    // A value without a colon is one of the fixed orders, and the error says targets exist.
    await refused({ sort: 'bpm' }, /unknown sort "bpm".*or target values such as bpm:120/);
  });
});

describe('parseSortTarget', () => {
  it('reads names, signs and exponents, and points at the bad term', () => {
    expect(parseSortTarget(' pitch : 4.4e2 ,loudness:-20').map((t) => [t.name, t.value])).toEqual([
      ['pitch', 440],
      ['loudness', -20],
    ]);
    const error = (() => {
      try {
        parseSortTarget('bpm:120,pitch:high');
      } catch (e) {
        return e as SearchSyntaxError;
      }
    })();
    expect(error?.position).toBe(8);
  });
});
