import { testService } from '@earshot/common/testing';
import { type Kysely, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { SEED_NOW, seedSearchCatalogue, testBackends, useSearchCatalogue } from '../testing/index.ts';
import { loadSyntheticCatalogue, syntheticVocabulary } from '../testing/synthetic-catalogue.ts';
import { searchSounds } from './execute.ts';
import type { SearchRequest } from './prepare.ts';

const postgresUrl = await testService('postgres');

/**
 * Rows where a side structure differs from the same structure recomputed from the search
 * document (0 = in step). Zero df rows may linger after deletions; they count nothing.
 */
async function drift(db: Kysely<any>): Promise<Record<string, number>> {
  const q = async (statement: string) =>
    Number(Object.values((await sql.raw<Record<string, string>>(statement).execute(db)).rows[0])[0]);
  const df = `select l as lexeme, count(*)::int as ndoc, (count(*) filter (where s.pack_id is null))::int as ndoc_unpacked,
      (count(distinct s.pack_id))::int as npacks
    from sound_search s, unnest(tsvector_to_array(s.tsv)) l group by l`;
  const tp = `select l as lexeme, s.pack_id, count(*)::int as n
    from sound_search s, unnest(tsvector_to_array(s.tsv)) l where s.pack_id is not null group by l, s.pack_id`;
  const tag = 'select distinct t as tag, s.duration, s.id as sound_id from sound_search s, unnest(s.tags) t';
  const kept =
    'select lexeme, ndoc, ndoc_unpacked, npacks from search_term_df where ndoc <> 0 or ndoc_unpacked <> 0 or npacks <> 0';
  const phrase = 'select id as sound_id, search_phrase_grams(tsv) as grams from sound_search';
  const hist =
    'select search_duration_bucket(duration) as bucket, count(*) as n from sound_search group by 1';
  const hidden =
    'select sound_id from sound_descriptors d where not exists (select 1 from sound_search s where s.id = d.sound_id)';
  return {
    df: await q(`select count(*) from ((${kept} except ${df}) union all (${df} except ${kept})) x`),
    negative: await q(
      'select count(*) from search_term_df where ndoc < 0 or ndoc_unpacked < 0 or npacks < 0',
    ),
    termPack: await q(
      `select count(*) from ((select lexeme, pack_id, n from search_term_pack except ${tp}) union all (${tp} except select lexeme, pack_id, n from search_term_pack)) x`,
    ),
    tag: await q(
      `select count(*) from ((select tag, duration, sound_id from search_tag except ${tag}) union all (${tag} except select tag, duration, sound_id from search_tag)) x`,
    ),
    phrase: await q(
      `select count(*) from ((select sound_id, grams from search_phrase except ${phrase}) union all (${phrase} except select sound_id, grams from search_phrase)) x`,
    ),
    hist: await q(
      `select count(*) from ((select bucket, n from search_duration_hist where n <> 0 except ${hist}) union all (${hist} except select bucket, n from search_duration_hist)) x`,
    ),
    hidden: await q(
      `select count(*) from ((select sound_id from search_hidden_descriptors except ${hidden}) union all (${hidden} except select sound_id from search_hidden_descriptors)) x`,
    ),
  };
}

const IN_STEP = { df: 0, negative: 0, termPack: 0, tag: 0, phrase: 0, hist: 0, hidden: 0 };

describe.each(testBackends(postgresUrl))('search side structures on %s', (backend) => {
  describe('stay in step with the store', () => {
    const t = useSearchCatalogue(backend, postgresUrl, seedSearchCatalogue);
    const db = () => t.catalogue.db;
    const exec = (q: ReturnType<typeof sql>) => q.execute(db());

    it('after seeding through the store triggers', async () => {
      expect(await drift(db())).toEqual(IN_STEP);
      const r = await sql<{ n: number }>`select count(*)::int as n from search_term_df`.execute(db());
      expect(r.rows[0].n).toBeGreaterThan(10);
    });
    it('after text, tag, duration and pack edits', async () => {
      await exec(sql`update sounds set tags = array['Snare', 'Brush'], duration = 1.25 where id = 102`);
      await exec(sql`update sounds set description = 'a quiet brushed cymbal' where id = 101`);
      await exec(sql`update sounds set pack_id = null where id = 103`);
      await exec(sql`update sounds set pack_id = 12 where id = 107`);
      expect(await drift(db())).toEqual(IN_STEP);
    });
    it('after pack and user renames (which rewrite many documents)', async () => {
      await exec(sql`update packs set name = 'Percussion Kit' where id = 11`);
      await exec(sql`update users set username = 'Roberto' where id = 2`);
      expect(await drift(db())).toEqual(IN_STEP);
    });
    it('after descriptor rows are written for hidden and visible sounds', async () => {
      // 108 is pending moderation, 109 failed processing: their descriptors are hidden.
      await exec(
        sql`insert into sound_descriptors (sound_id, bpm) values (108, 118), (109, 125), (103, 121)`,
      );
      expect(await drift(db())).toEqual(IN_STEP);
      const r = await sql<{ n: number }>`select count(*)::int as n from search_hidden_descriptors`.execute(
        db(),
      );
      expect(r.rows[0].n).toBe(2);
      await exec(sql`update sound_descriptors set bpm = 119 where sound_id = 108`);
      await exec(sql`delete from sound_descriptors where sound_id = 103`);
      expect(await drift(db())).toEqual(IN_STEP);
    });
    it('after moderation hides and shows sounds', async () => {
      await exec(sql`update sounds set moderation_state = 'rejected' where id in (101, 104)`);
      expect(await drift(db())).toEqual(IN_STEP);
      await exec(sql`update sounds set moderation_state = 'ok' where id = 104`);
      await exec(sql`update sounds set moderation_state = 'ok' where id = 108`);
      expect(await drift(db())).toEqual(IN_STEP);
    });
    it('after a counter-only update (which must leave them untouched) and a deletion', async () => {
      await exec(sql`update sounds set num_downloads = num_downloads + 1`);
      expect(await drift(db())).toEqual(IN_STEP);
      await exec(sql`delete from sounds where id = 105`);
      expect(await drift(db())).toEqual(IN_STEP);
      // A hidden sound with descriptors, and a visible one with descriptors, deleted.
      await exec(sql`delete from sounds where id in (109, 101)`);
      expect(await drift(db())).toEqual(IN_STEP);
    });
    it('after a sound is inserted already visible, with descriptors written in the same transaction', async () => {
      await t.catalogue.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('sounds')
          .values({
            id: 120,
            user_id: 1,
            pack_id: 12,
            name: 'Door creak slow',
            tags: ['door', 'creak'],
            description: 'an old door creak in the night',
            type: 'wav',
            duration: 99.99,
            samplerate: 44100,
            channels: 1,
            license: 'Attribution',
            original_filename: 'door.wav',
            original_path: '/dev/null/120',
            processing_state: 'Processed',
            moderation_state: 'ok',
          })
          .execute();
        await sql`insert into sound_descriptors (sound_id, bpm) values (120, 100)`.execute(trx);
      });
      expect(await drift(db())).toEqual(IN_STEP);
      await exec(sql`update sounds set duration = 100.5, name = 'creak door' where id = 120`);
      expect(await drift(db())).toEqual(IN_STEP);
    });
    it('after a bulk search_rebuild()', async () => {
      await exec(sql`delete from search_term_pack`);
      await exec(sql`delete from search_phrase`);
      await exec(sql`update search_duration_hist set n = n + 3`);
      await exec(sql`insert into search_hidden_descriptors values (102)`);
      await exec(sql`update search_term_df set npacks = npacks + 1`);
      await exec(sql`select search_rebuild()`);
      expect(await drift(db())).toEqual(IN_STEP);
    });
    it('counts read from them equal plain counts', async () => {
      const search = (req: SearchRequest) => searchSounds(t.catalogue, { now: SEED_NOW, limit: 150, ...req });
      expect((await search({ query: 'drum' })).count).toBe(
        (await search({ query: 'drum', sort: 'created_desc' })).count,
      );
      const snare = await search({ filter: 'tag:SNARE duration:[1 TO 2]' });
      expect(snare.count).toBe(1);
      expect(snare.ids).toEqual([102]);
      expect((await search({ filter: 'tag:snare duration:[0 TO 1]' })).count).toBe(0);
    });
  });

  describe('give the results of the plain path on a synthetic catalogue', () => {
    const t = useSearchCatalogue(
      backend,
      postgresUrl,
      (db) => loadSyntheticCatalogue(db, { sounds: 1500 }),
      120_000,
    );
    const vocab = syntheticVocabulary(50_000, 42);
    const tags = syntheticVocabulary(20_000, 49);
    const plainCount = async (where: string) =>
      (
        await sql
          .raw<{ n: number }>(`select count(*)::int as n from sound_search s where ${where}`)
          .execute(t.catalogue.db)
      ).rows[0].n;

    it('side structures built by search_rebuild() are in step', async () => {
      expect(await drift(t.catalogue.db)).toEqual(IN_STEP);
    });

    it('one-word counts equal the plain count, and the capped page holds only matches', async () => {
      for (const word of ['voice', vocab[3], vocab[40], vocab[900]]) {
        const exact = await searchSounds(t.catalogue, { query: word }, { popularityCapAbove: Infinity });
        const capped = await searchSounds(t.catalogue, { query: word }, { popularityCapAbove: 0 });
        const n = await plainCount(`s.tsv @@ plainto_tsquery('english', '${word}')`);
        expect(exact.count).toBe(n);
        expect(capped.count).toBe(n);
        expect(capped.ids.length).toBe(Math.min(15, n));
        const matches = await sql<{ id: number }>`select id from sound_search
          where tsv @@ plainto_tsquery('english', ${word}) and id in (${sql.join([0, ...capped.ids])})`.execute(
          t.catalogue.db,
        );
        expect(matches.rows.length).toBe(capped.ids.length);
        // Scores stay the exact relevance and come best first.
        expect(capped.scores).toEqual([...capped.scores].sort((a, b) => b - a));
      }
    });

    it('group_by_pack: exact group count and per-pack counts from the side tables', async () => {
      for (const word of ['voice', vocab[5]]) {
        const exact = await searchSounds(
          t.catalogue,
          { query: word, groupByPack: true, limit: 150 },
          { popularityCapAbove: Infinity },
        );
        const capped = await searchSounds(
          t.catalogue,
          { query: word, groupByPack: true, limit: 150 },
          { popularityCapAbove: 0 },
        );
        expect(capped.count).toBe(exact.count);
        const perPack = new Map(exact.packGroups?.filter((g) => g !== null).map((g) => [g.packId, g.count]));
        for (const g of capped.packGroups ?? [])
          if (g && perPack.has(g.packId)) expect(g.count).toBe(perPack.get(g.packId));
        expect(new Set(capped.ids).size).toBe(capped.ids.length);
      }
    });

    it('tag plus duration counts equal the plain count', async () => {
      for (const [tag, range] of [
        [tags[0], '[0 TO 5]'],
        [tags[1], '{1 TO 10]'],
        [tags[2], '[* TO 3}'],
        [tags[0], '[2.5 TO *]'],
      ]) {
        const r = await searchSounds(t.catalogue, { filter: `tag:${tag} duration:${range}`, limit: 150 });
        const lo = range.startsWith('[*')
          ? 'true'
          : `s.duration ${range[0] === '[' ? '>=' : '>'} ${range.slice(1).split(' ')[0]}`;
        const hiText = range.slice(0, -1).split(' TO ')[1];
        const hi = hiText === '*' ? 'true' : `s.duration ${range.endsWith(']') ? '<=' : '<'} ${hiText}`;
        const n = await plainCount(`s.tags @> array['${tag}'] and ${lo} and ${hi}`);
        expect(n).toBeGreaterThan(0);
        expect(r.count).toBe(n);
        expect(r.ids.length).toBe(Math.min(n, 150));
      }
    });
  });
});
