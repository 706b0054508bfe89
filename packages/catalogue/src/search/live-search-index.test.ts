import { testService } from '@earshot/common/testing';
import { sql } from 'kysely';
import { describe, expect, it, vi } from 'vitest';
import { NO_CHANGE_FEED } from '../connection/change-feed.ts';
import { testBackends, useSearchCatalogue } from '../testing/index.ts';
import { loadSyntheticCatalogue, syntheticVocabulary } from '../testing/synthetic-catalogue.ts';
import { searchSounds } from './execute.ts';
import { LiveSearchIndex } from './live-search-index.ts';
import type { SearchRequest } from './prepare.ts';

const postgresUrl = await testService('postgres');

const until = (done: () => boolean) =>
  vi.waitFor(() => expect(done()).toBe(true), { timeout: 60_000, interval: 20 });

/**
 * The live index against the engine's exact plans after each kind of change a sound's search
 * document can go through: the index is built once, then every edit, counter, rename, bpm write,
 * visibility change, addition and deletion reaches its answers (pages, scores and exact counts)
 * through search_changes, and a rebuild started by a full overlay answers the same.
 */
describe.each(testBackends(postgresUrl))('the live search index follows the catalogue on %s', (backend) => {
  const t = useSearchCatalogue(
    backend,
    postgresUrl,
    (db) => loadSyntheticCatalogue(db, { sounds: 1200 }),
    120_000,
  );
  const words = syntheticVocabulary(50_000).slice(0, 12);

  const requests = (): SearchRequest[] => [
    { query: 'qqword' },
    { query: 'qqword', sort: 'downloads_desc' },
    { query: 'zzlive' },
    { query: words[0], filter: 'tag:zzlive' },
    { query: words[1], sort: 'downloads_desc' },
    { query: words[2], sort: 'rating_desc', filter: 'bpm:[90 TO 110]' },
    { query: `${words[0]} ${words[3]}` },
    { query: words[4], groupByPack: true },
    { query: words[5], filter: 'duration:[0 TO 4]', sort: 'duration_asc' },
    { query: words[6], offset: 15 },
    // Phrases, matched on the changed documents' positions as on the lists' (a tag, then the
    // description, across their boundary: `a` is a stopword).
    { query: '"qqword here"' },
    { query: `"zzlive ${words[0]} a qqword"`, groupByPack: true },
    { query: '"zzlive qqword"', sort: 'downloads_desc' },
    { query: `"${words[0]} ${words[1]}" ${words[2]}` },
  ];

  const compareAll = async (index: LiveSearchIndex) => {
    for (const request of requests()) {
      const mine = await index.search(request);
      const exact = await searchSounds(t.catalogue, request, {
        popularityCapAbove: Number.POSITIVE_INFINITY,
      });
      const label = JSON.stringify(request);
      expect(mine, label).toBeDefined();
      expect(mine?.count, label).toBe(exact.count);
      expect(mine?.ids, label).toEqual(exact.ids);
      expect(
        mine?.scores.map((s) => Math.fround(s)),
        label,
      ).toEqual(exact.scores.map((s) => Math.fround(s)));
      if (exact.packGroups) expect(mine?.packGroups, label).toEqual(exact.packGroups);
    }
  };

  it('answers as the engine after edits, counters, renames, bpm, visibility, additions and deletions', async () => {
    const db = t.catalogue.db;
    const index = new LiveSearchIndex(db, NO_CHANGE_FEED, { rebuildAtLeast: 1_000_000 }).start();
    await until(() => index.isReady());
    await compareAll(index);
    const some = (
      await sql<{
        id: number;
      }>`select id from sounds where moderation_state = 'ok' order by id limit 8`.execute(db)
    ).rows.map((r) => r.id);

    // Text and tags of one sound, the counters of another.
    await sql`update sounds set tags = array['zzlive', ${words[0]}], description = 'a qqword here'
      where id = ${some[0]}`.execute(db);
    await sql`update sounds set num_downloads = 1000000, avg_rating = 5, num_ratings = 900
      where id = ${some[1]}`.execute(db);
    await compareAll(index);
    expect(index.stats()?.overlay).toBe(1); // the counters changed the columns only

    // A user's name and a sound's bpm.
    await sql`update users set username = 'qqword' where id = (select user_id from sounds where id = ${some[2]})`.execute(
      db,
    );
    await sql`update sound_descriptors set bpm = 100 where sound_id = ${some[3]}`.execute(db);
    await compareAll(index);

    // Hidden by moderation, then back; one deleted; one added with a new id.
    await sql`update sounds set moderation_state = 'pending_moderation' where id = ${some[0]}`.execute(db);
    await compareAll(index);
    await sql`update sounds set moderation_state = 'ok' where id = ${some[0]}`.execute(db);
    await sql`delete from sounds where id = ${some[4]}`.execute(db);
    const columns = (
      await sql<{ name: string }>`select column_name as name from information_schema.columns
        where table_name = 'sounds' and is_generated = 'NEVER' and column_name not in ('id', 'name', 'md5')`.execute(
        db,
      )
    ).rows.map((r) => sql.id(r.name));
    await sql`insert into sounds (id, name, md5, ${sql.join(columns)})
      select (select max(id) + 1000 from sounds), 'fresh qqword', null, ${sql.join(columns)}
      from sounds where id = ${some[5]}`.execute(db);
    await compareAll(index);
    index.close();
  });

  it('rebuilds in the background when the overlay grows, and answers the same', async () => {
    const db = t.catalogue.db;
    const index = new LiveSearchIndex(db, NO_CHANGE_FEED, { rebuildAtLeast: 5, rebuildShare: 0 }).start();
    await until(() => index.isReady());
    await sql`update sounds set description = description || ' zzlive qqword'
      where id in (select id from sounds where moderation_state = 'ok' order by id desc limit 20)`.execute(
      db,
    );
    await compareAll(index);
    // The catch-up above found 20 changed documents over the limit of 5: a rebuild started.
    await until(() => index.stats()?.overlay === 0);
    await compareAll(index);
    index.close();
  });

  it('shares its lists: an index that adopts them answers the same, writes only its own columns, and takes each rebuild', async () => {
    const db = t.catalogue.db;
    const offered: Uint8Array[] = [];
    const leader = new LiveSearchIndex(db, NO_CHANGE_FEED, {
      share: (bytes) => offered.push(bytes),
      rebuildAtLeast: 5,
      rebuildShare: 0,
    }).start();
    await until(() => leader.isReady());
    expect(offered).toHaveLength(1);
    expect(offered[0].buffer).toBeInstanceOf(SharedArrayBuffer);
    const follower = new LiveSearchIndex(db, NO_CHANGE_FEED, { rebuilds: false }).adopt(offered[0]);
    await until(() => follower.isReady());
    await compareAll(follower);

    // A counter and a text edit reach the follower alone (the leader is not asked): the lists'
    // bytes, which both read, are left as they were.
    const before = Buffer.from(offered[0]).toString('base64');
    await sql`update sounds set num_downloads = num_downloads + 1000 where id in
      (select id from sounds where moderation_state = 'ok' order by id limit 30)`.execute(db);
    await sql`update sounds set description = description || ' zzlive qqword'
      where id in (select id from sounds where moderation_state = 'ok' order by id desc limit 20)`.execute(
      db,
    );
    await compareAll(follower);
    expect(Buffer.from(offered[0]).toString('base64')).toBe(before);
    // Past the overlay's bound the follower waits for the leader's rebuild rather than make its own.
    expect(follower.stats()?.overlay).toBe(20);

    await compareAll(leader); // its catch-up finds the 20 over its bound of 5: it rebuilds and offers them
    await until(() => offered.length === 2);
    follower.adopt(offered[1]);
    await until(() => follower.stats()?.overlay === 0);
    await compareAll(follower);
    leader.close();
    follower.close();
  });

  it('starts from its snapshot and catches up with the changes made since it was written', async () => {
    const db = t.catalogue.db;
    let stored: Uint8Array | undefined;
    let writes = 0;
    const snapshots = {
      read: async () => stored,
      write: async (parts: Uint8Array[]) => {
        writes++;
        stored = Buffer.concat(parts);
      },
    };
    const first = new LiveSearchIndex(db, NO_CHANGE_FEED, { snapshots }).start();
    await until(() => first.isReady());
    first.close();
    expect(writes).toBe(1);
    await sql`update sounds set tags = array['zzlive', 'qqword'] where id in
      (select id from sounds where moderation_state = 'ok' order by id limit 3 offset 20)`.execute(db);
    await sql`delete from sounds where id = (select max(id) from sounds where moderation_state = 'ok')`.execute(
      db,
    );
    const second = new LiveSearchIndex(db, NO_CHANGE_FEED, { snapshots }).start();
    await until(() => second.isReady());
    expect(writes).toBe(1); // read from the snapshot, not built again
    await compareAll(second);
    second.close();

    // Bytes that are not a snapshot: built from the catalogue (and written).
    stored = new Uint8Array([1, 2, 3]);
    const third = new LiveSearchIndex(db, NO_CHANGE_FEED, { snapshots }).start();
    await until(() => third.isReady());
    expect(writes).toBe(2);
    await compareAll(third);
    third.close();
  });
});
