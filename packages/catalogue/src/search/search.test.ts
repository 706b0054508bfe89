import { testService } from '@earshot/common/testing';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import {
  SEED_NOW,
  seedSearchCatalogue,
  testBackends,
  useSearchCatalogue,
  VISIBLE_IDS,
} from '../testing/index.ts';
import { SearchAbandoned, SearchExecutionError, SearchSyntaxError } from './errors.ts';
import { matchingSoundIds, searchCondition, searchSounds } from './execute.ts';
import type { SearchRequest } from './prepare.ts';
import { prepareSearch, prepareV1Search } from './prepare.ts';
import { limitedSearch } from './statement.ts';

const postgresUrl = await testService('postgres');

describe.each(testBackends(postgresUrl))('search on %s', (backend) => {
  const t = useSearchCatalogue(backend, postgresUrl, seedSearchCatalogue);

  const search = (req: SearchRequest) => searchSounds(t.catalogue, { now: SEED_NOW, limit: 150, ...req });
  const ids = async (req: SearchRequest) => (await search(req)).ids.slice().sort((a, b) => a - b);
  /** Statements under way on the server whose text holds `marker`, other than this probe. */
  const runningStatements = async (marker: string) =>
    (
      await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
        where state = 'active' and pid <> pg_backend_pid() and query like ${`%${marker}%`}`.execute(
        t.catalogue.db,
      )
    ).rows[0].n;

  describe('visibility', () => {
    it('an empty query returns every visible sound and only those', async () => {
      const r = await search({ query: '' });
      expect(r.count).toBe(VISIBLE_IDS.length);
      expect(r.ids.slice().sort()).toEqual(VISIBLE_IDS);
    });
    it('unprocessed or unmoderated sounds are never found', async () => {
      expect(await ids({ query: 'bird' })).toEqual([105]);
      expect(await ids({ filter: 'tag:bird' })).toEqual([]);
      expect(await ids({ query: 'broken' })).toEqual([]);
    });
    it('search_rebuild() re-derives the document of every visible sound', async () => {
      const n = await sql<{ n: string }>`select search_rebuild() as n`.execute(t.catalogue.db);
      expect(Number(n.rows[0].n)).toBe(VISIBLE_IDS.length);
      expect(await ids({ query: 'drum' })).toEqual([101, 102, 103]);
      expect(await ids({ filter: 'tag:rain' })).toEqual([104, 105]);
    });
    it('follows moderation and renames through the store tables', async () => {
      const db = t.catalogue.db;
      await sql`update sounds set moderation_state = 'rejected' where id = 107`.execute(db);
      expect(await ids({ query: 'guitar' })).toEqual([]);
      await sql`update sounds set moderation_state = 'ok' where id = 107`.execute(db);
      expect(await ids({ query: 'guitar' })).toEqual([107]);
      await sql`update packs set name = 'Thunder Collection' where id = 12`.execute(db);
      expect(await ids({ filter: 'pack:thunder' })).toEqual([104, 105]);
      await sql`update packs set name = 'Rain Pack' where id = 12`.execute(db);
      await sql`update users set username = 'Alicia' where id = 1`.execute(db);
      expect(await ids({ filter: 'username:alicia' })).toEqual([104, 105]);
      await sql`update users set username = 'alice' where id = 1`.execute(db);
    });
  });

  describe('contract filter examples', () => {
    const cases: [string, number[]][] = [
      ['tag:guitar', [107]],
      ['type:(wav OR aiff)', [101, 102, 103, 105]],
      ['tag:bass tag:drum', [101, 103]],
      ['tag:bass description:"heavy distortion"', [101]],
      ['is_geotagged:true tag:field-recording duration:[60 TO 120]', [104, 105]],
      ['samplerate:44100 type:wav channels:2', [105]],
      ['duration:[0.1 TO 0.3] avg_rating:[3 TO *]', [102]],
      ['is_geotagged:1 tag:field-recording', [104, 105]],
      ['geotag:"Intersects(-74.093 41.042 -69.347 44.558)"', [105]],
      ['geotag:"IsDisjointTo(-74.093 41.042 -69.347 44.558)"', [101, 103, 104]],
      ['geotag:"Intersects(-74.093 41.042 -69.347 44.558) distErr=20"', [105]],
      ['geotag:"Intersects(-80 40 -60 50)" OR geotag:"Intersects(60 40 100 50)"', [103, 105]],
      [
        '(geotag:"Intersects(-80 40 -60 50)" OR geotag:"Intersects(60 40 100 50)") AND tag:field-recording',
        [105],
      ],
      ['{!geofilt sfield=geotag pt=41.3833,2.1833 d=10} tag:barcelona', [104]],
      ['{!geofilt sfield=geotag pt=41.3833,2.1833 d=10}', [101, 104]],
      ['created:[* TO NOW]', VISIBLE_IDS],
      ['created:[1976-03-06T23:59:59.999Z TO *]', VISIBLE_IDS],
      ['created:[1995-12-31T23:59:59.999Z TO 2015-03-06T00:00:00Z]', [101, 102]],
      ['created:[NOW-1YEAR/DAY TO NOW/DAY+1DAY]', [106]],
      ['created:[2014-04-16T20:07:11Z TO 2014-04-16T20:07:11Z+1YEAR]', [101, 102]],
      ['created:[2016-05-05T10:00:00Z/YEAR TO 2016-05-05T10:00:00Z]', [103]],
      ['created:2014-04-16', [101]],
      ['description:(piano AND chord)', [106]],
      ['license:"Creative Commons 0"', [103, 105]],
      ['license:"attribution noncommercial"', [104]],
      ['username:ALICE', [104, 105]],
      ['username:Carol_99', [106, 107]],
      ['pack:"drum kit"', [101, 102, 103]],
      ['pack_grouping:"11_Drum Kit"', [101, 102, 103]],
      ['comment:thunder', [104]],
      ['comments:[1 TO *]', [104]],
      ['num_comments:0 -tag:drum', [105, 106, 107]],
      ['id:106', [106]],
      ['id:[102 TO 104]', [102, 103, 104]],
      ['id:{102 TO 104}', [103]],
      ['num_downloads:[100 TO *]', [104, 105, 106]],
      ['filesize:[* TO 50000]', [101, 107]],
      ['is_remix:true', [107]],
      ['is_explicit:1', [107]],
      ['is explicit:true', [107]],
      ['was_remixed:false -tag:rain -tag:drum', [106, 107]],
      ['category:Music subcategory:"Solo instrument"', [106]],
      ['md5:d41d8cd98f00b204e9800998ecf8427e', [106]],
      ['name:rain', [104, 105]],
      ['original_filename:"rain in forest"', [105]],
      ['tag:drum NOT tag:snare', [101, 103]],
      ['tag:drum -tag:snare', [101, 103]],
      ['tag:(snare OR kick)', [101, 102]],
      ['tag:drum AND (tag:snare OR tag:double)', [102, 103]],
      ['tag:music OR tag:rain', [104, 105, 106, 107]],
      ['-tag:drum', [104, 105, 106, 107]],
      ['bpm:[119 TO 121]', [101]],
      ['loopable:false', [102]],
      ['tonality:"Asharp minor"', [101]],
      ['loudness:[-15 TO 0]', [101]],
      ['ac_tempo:95', [102]],
      ['geotag:*', [101, 103, 104, 105]],
      ['-bpm:[100 TO 200]', [102, 103, 104, 105, 106, 107]],
      ['tag:rain OR bpm:[119 TO 121]', [101, 104, 105]],
      ['tag:drum -loopable:true', [102, 103]],
      ['(tag:rain OR bpm:[90 TO 100]) AND (tag:drum OR loudness:[-30 TO 0])', [102]],
      ['*:*', VISIBLE_IDS],
    ];
    it.each(cases)('%s', async (filter, expected) => {
      expect(await ids({ filter })).toEqual(expected);
    });
  });

  describe('descriptors_filter', () => {
    const cases: [string, number[]][] = [
      ['lowlevel.pitch.mean:[219.9 TO 220.1]', [101]],
      ['lowlevel.pitch.mean:[219.9 TO 220.1] AND lowlevel.pitch_salience.mean:[0.6 TO *]', [101]],
      ['lowlevel.mfcc.mean[0]:[-1124 TO -1121]', [101]],
      ['lowlevel.mfcc.mean[1]:[17 TO 20] AND lowlevel.mfcc.mean[4]:[0 TO 20]', [101]],
      ['tonal.key_key:"Asharp"', [101]],
      ['tonal.key_scale:"major"', [102]],
      [
        '(tonal.key_key:"C" AND tonal.key_scale:"major") OR (tonal.key_key:"A" AND tonal.key_scale:"minor")',
        [102],
      ],
      ['tonal.key_key:"C" tonal.key_scale="major" tonal.key_strength:[0.8 TO *]', []],
      ['.lowlevel.pitch.mean:[90 TO 500]', [101, 102]],
      ['rhythm.bpm:[119 TO 121]', [101]],
      ['bpm:[90 TO 100]', [102]],
      ['tonal.key_key:[1 TO 2]', []],
      ['NOT lowlevel.pitch.mean:[219.9 TO 220.1]', [102, 103, 104, 105, 106, 107]],
      ['lowlevel.pitch.mean:[400 TO 500] OR bpm:[119 TO 121]', [101, 102]],
      ['NOT (bpm:[119 TO 121] OR tonal.key_scale:"major")', [103, 104, 105, 106, 107]],
    ];
    it.each(cases)('%s', async (descriptorsFilter, expected) => {
      expect(await ids({ descriptorsFilter })).toEqual(expected);
    });
    it("reads each sound's descriptor row once, however many conditions the filter has", async () => {
      const ranges = Array.from({ length: 100 }, (_, i) => `lowlevel.pitch.mean:[${-i} TO 1000]`);
      const descriptorsFilter = ranges.join(' AND ');
      const where = searchCondition(prepareSearch({ descriptorsFilter, filter: 'tag:drum OR bpm:*' }));
      const plan = await sql<{
        'QUERY PLAN': unknown;
      }>`explain (format json) select s.id from sound_search s where ${where}`.execute(t.catalogue.db);
      const text = JSON.stringify(plan.rows[0]['QUERY PLAN']);
      expect(text.match(/"Relation Name":"sound_descriptors"/g)).toHaveLength(1);
      expect(await ids({ descriptorsFilter })).toEqual([101, 102]);
      expect(await ids({ descriptorsFilter, filter: 'tag:drum OR bpm:*' })).toEqual([101, 102]);
    });
    it('combines with the text filter', async () => {
      expect(await ids({ filter: 'tag:drum', descriptorsFilter: 'tonal.key_scale:"major"' })).toEqual([102]);
    });
  });

  describe('query rules', () => {
    it('every term is required', async () => {
      expect(await ids({ query: 'drum' })).toEqual([101, 102, 103]);
      expect(await ids({ query: 'bass drum' })).toEqual([101, 103]);
      expect(await ids({ query: '+bass +drum' })).toEqual([101, 103]);
    });
    it('- excludes a term, phrases keep word order', async () => {
      expect(await ids({ query: 'bass -drum' })).toEqual([107]);
      expect(await ids({ query: '"bass drum" -double' })).toEqual([101]);
      expect(await ids({ query: '"drum double"' })).toEqual([103]);
      expect(await ids({ query: '"drum bass"' })).toEqual([]);
      expect(await ids({ query: '-drum' })).toEqual([104, 105, 106, 107]);
    });
    it('an odd number of quotes is treated as none', async () => {
      expect(await ids({ query: '"bass drum' })).toEqual([101, 103]);
    });
    it('stems words and searches tags, description, name, pack and username', async () => {
      expect(await ids({ query: 'storms' })).toEqual([104]);
      expect(await ids({ query: 'kit' })).toEqual([101, 102, 103]);
      expect(await ids({ query: 'alice' })).toEqual([104, 105]);
    });
    it('a number also finds the sound with that id', async () => {
      expect(await ids({ query: '104' })).toEqual([104]);
      expect(await ids({ query: '104 rain' })).toEqual([104]);
    });
    it('ranks by the field weights: a tag match outranks a description match', async () => {
      const r = await search({ query: 'bass' });
      expect(r.ids.slice(0, 2).sort()).toEqual([101, 103]);
      expect(r.ids[2]).toBe(107);
      expect(r.scores[0]).toBeGreaterThan(r.scores[2]);
    });
    it('weights choose the searched fields', async () => {
      expect(await ids({ query: 'distortion' })).toEqual([101]);
      expect(await ids({ query: 'distortion', weights: 'tag:1' })).toEqual([]);
      expect(await ids({ query: 'bass', weights: 'description:3' })).toEqual([103, 107]);
      const flipped = await search({ query: 'bass', weights: 'tag:1,description:5' });
      expect(flipped.ids[0]).toBe(103);
    });
  });

  describe('sort, pagination, grouping', () => {
    it('sorts by each option', async () => {
      expect((await search({ filter: 'tag:drum', sort: 'duration_asc' })).ids).toEqual([102, 101, 103]);
      expect((await search({ filter: 'tag:drum', sort: 'duration_desc' })).ids).toEqual([103, 101, 102]);
      expect((await search({ filter: 'tag:drum', sort: 'created_desc' })).ids).toEqual([103, 102, 101]);
      expect((await search({ filter: 'tag:drum', sort: 'created_asc' })).ids).toEqual([101, 102, 103]);
      expect((await search({ filter: 'tag:drum', sort: 'downloads_desc' })).ids).toEqual([102, 101, 103]);
      expect((await search({ filter: 'tag:drum', sort: 'downloads_asc' })).ids).toEqual([103, 101, 102]);
    });
    it('breaks rating ties by the number of ratings, in both directions', async () => {
      expect((await search({ filter: 'tag:drum', sort: 'rating_desc' })).ids).toEqual([102, 101, 103]);
      expect((await search({ filter: 'tag:drum', sort: 'rating_asc' })).ids).toEqual([103, 102, 101]);
    });
    it('pages with an exact count', async () => {
      const p1 = await search({ query: '', sort: 'created_asc', limit: 3, offset: 0 });
      const p3 = await search({ query: '', sort: 'created_asc', limit: 3, offset: 6 });
      const p4 = await search({ query: '', sort: 'created_asc', limit: 3, offset: 9 });
      expect(p1).toMatchObject({ count: 7, ids: [101, 102, 103] });
      expect(p3).toMatchObject({ count: 7, ids: [106] });
      expect(p4).toMatchObject({ count: 7, ids: [] });
    });
    it('group_by_pack keeps one sound per pack with the pack match count', async () => {
      const r = await search({ query: 'drum', groupByPack: '1' });
      expect(r.count).toBe(1);
      expect(r.packGroups).toEqual([{ packId: 11, count: 3 }]);
      const all = await search({ query: '', groupByPack: '1', sort: 'downloads_desc' });
      expect(all.count).toBe(4);
      expect(all.ids).toEqual([106, 104, 102, 107]);
      expect(all.packGroups).toEqual([null, { packId: 12, count: 2 }, { packId: 11, count: 3 }, null]);
      expect((await search({ query: 'drum', groupByPack: 'true' })).count).toBe(3);
    });
  });

  describe('bad input and injection', () => {
    it('bad parameters are typed errors with positions', async () => {
      await expect(search({ filter: 'duration:' })).rejects.toThrow(
        'Invalid filter at position 9: expected a value after "duration:"',
      );
      await expect(search({ filter: 'durration:[1 TO 2]' })).rejects.toThrow(/did you mean "duration"/);
      await expect(search({ filter: ' ' })).rejects.toBeInstanceOf(SearchSyntaxError);
      await expect(search({ sort: 'loudest' })).rejects.toBeInstanceOf(SearchSyntaxError);
      await expect(search({ weights: 'tag:x' })).rejects.toBeInstanceOf(SearchSyntaxError);
      await expect(search({ descriptorsFilter: 'foo.bar:1' })).rejects.toBeInstanceOf(SearchSyntaxError);
    });
    it('out-of-range numbers never reach the database as errors', async () => {
      expect(await ids({ filter: 'id:99999999999' })).toEqual([]);
      expect(await ids({ filter: 'samplerate:[44099.5 TO 44100.5]' })).toEqual([
        101, 103, 104, 105, 106, 107,
      ]);
      expect(await ids({ filter: 'channels:[-1e300 TO 1e300]' })).toEqual(VISIBLE_IDS);
      expect(await ids({ filter: 'bpm:120.5' })).toEqual([]);
    });
    // PGlite (single-threaded wasm) cannot cancel a statement; only the server can.
    it.skipIf(backend !== 'postgres')(
      'a search past its budget is a 409 SearchExecutionError, its statement cancelled on the server',
      async () => {
        const marker = `budget_probe_${Date.now()}`;
        const started = Date.now();
        const err = await limitedSearch({ budgetMs: 200 }, () =>
          sql`select pg_sleep(30) as ${sql.ref(marker)}`.execute(t.catalogue.db),
        ).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(SearchExecutionError);
        expect((err as SearchExecutionError).status).toBe(409);
        expect((err as SearchExecutionError).message).toMatch(
          /too expensive.*0\.2 s of database time.*Narrow it/,
        );
        // Far from the 30 s the statement asked for: it was stopped, not waited for.
        expect(Date.now() - started).toBeLessThan(15_000);
        await expect.poll(() => runningStatements(marker), { timeout: 5_000 }).toBe(0);
        expect((await search({ query: 'drum' })).count).toBe(3);
      },
    );
    it.skipIf(backend !== 'postgres')(
      'an aborted search fails at once and leaves no statement running',
      async () => {
        const marker = `abort_probe_${Date.now()}`;
        const abort = new AbortController();
        const pending = limitedSearch({ signal: abort.signal }, () =>
          sql`select pg_sleep(30) as ${sql.ref(marker)}`.execute(t.catalogue.db),
        ).catch((e: unknown) => e);
        await expect.poll(() => runningStatements(marker), { timeout: 5_000 }).toBe(1);
        abort.abort();
        expect(await pending).toBeInstanceOf(SearchAbandoned);
        await expect.poll(() => runningStatements(marker), { timeout: 5_000 }).toBe(0);
      },
    );
    it('injection attempts are inert', async () => {
      const attacks = [
        { filter: `tag:"x'; DROP TABLE sounds; --"` },
        { filter: `username:"alice' OR '1'='1"` },
        { filter: `description:"') OR true --"` },
        { query: `'); DROP TABLE sounds; --` },
        { query: `x' || (select 1) || '` },
        { descriptorsFilter: `tonal.key_key:"A'); DROP TABLE sounds; --"` },
      ];
      for (const attack of attacks) expect((await search(attack)).count).toBe(0);
      const still = await sql<{ n: number }>`select count(*)::int as n from sounds`.execute(t.catalogue.db);
      expect(still.rows[0].n).toBe(9);
    });
  });

  describe('filter-only and v1', () => {
    it('matchingSoundIds gives the id set of a filter for the similarity engine', async () => {
      expect(await matchingSoundIds(t.catalogue, { filter: 'tag:rain', now: SEED_NOW })).toEqual([104, 105]);
    });
    it('v1 q/f/s/g follow their contract rules', async () => {
      const prepared = prepareV1Search({ q: '+', f: 'tag:drum', s: 'duration_asc', now: SEED_NOW });
      expect((await searchSounds(t.catalogue, prepared)).ids).toEqual([102, 101, 103]);
      const grouped = prepareV1Search({ q: 'rain', g: '1' });
      expect((await searchSounds(t.catalogue, grouped)).count).toBe(1);
      expect(() => prepareV1Search({ q: 'rain', f: 'tag:' })).toThrow(/Invalid f at position 4/);
    });
  });
});
