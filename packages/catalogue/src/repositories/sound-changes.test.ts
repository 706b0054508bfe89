import { testService } from '@earshot/common/testing';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import {
  insertSeedDescriptors,
  insertSeedVector,
  setModerationState,
  setProcessingState,
  testBackends,
  useRepositoryCatalogue,
} from '../testing/index.ts';
import { recordSoundDownload } from './downloads.ts';
import { findOrCreatePack } from './packs.ts';
import { soundRecordsByIds } from './records.ts';
import {
  decodeChangeCursor,
  encodeChangeCursor,
  FEED_START,
  latestSoundChange,
  readSoundChanges,
  readSoundChangesWithRecords,
  rebuildSoundChanges,
  type SoundChangePosition,
} from './sound-changes.ts';
import { soundRecordRowsByJson } from './sound-record-rows.ts';
import { ALL_SOUND_RECORD_COLUMNS, epochDate, type SoundRecordColumn } from './sound-record-select.ts';
import { createSound, deleteSound, editSound } from './sounds.ts';
import { createUser } from './users.ts';

const postgresUrl = await testService('postgres');

describe.each(testBackends(postgresUrl))('the sound changes feed on %s', (backend) => {
  const { db, unique } = useRepositoryCatalogue(backend, postgresUrl);

  async function newSound(userId: number, trusted = true) {
    const sound = await createSound(db(), {
      userId,
      name: unique('sound '),
      tags: ['rain'],
      license: 'Creative Commons 0',
      originalFilename: 'rain.wav',
      originalPath: `${unique('originals/')}.wav`,
      moderationState: trusted ? 'ok' : 'pending_moderation',
    });
    return sound.id;
  }
  const processed = (id: number) => setProcessingState(db(), id, { state: 'Processed', progress: 1 });

  /** Every change after `from`, read in pages of `size` the way a harvester walks the feed. */
  async function walk(from: SoundChangePosition, size = 2) {
    const seen: Array<{ id: number; kind: string }> = [];
    let at = from;
    for (;;) {
      const page = await readSoundChanges(db(), at, size);
      seen.push(...page.map((c) => ({ id: c.soundId, kind: c.kind })));
      if (page.length < size) return { seen, at };
      at = page[page.length - 1].position;
    }
  }

  it('lists a sound once it is public, then each later change, once per sound at its latest kind', async () => {
    const user = await createUser(db(), { username: unique('u') });
    const start = (await walk(FEED_START)).at;
    const a = await newSound(user.id);
    const b = await newSound(user.id, false);
    // Neither is public yet (queued; b also awaits moderation): nothing to tell.
    expect((await walk(start)).seen).toEqual([]);
    await processed(a);
    await processed(b);
    const first = await walk(start);
    expect(first.seen).toEqual([{ id: a, kind: 'created' }]);

    await setModerationState(db(), b, 'ok', null);
    await editSound(db(), a, { name: 'renamed' });
    const second = await walk(first.at);
    expect(second.seen).toEqual([
      { id: b, kind: 'approved' },
      { id: a, kind: 'edited' },
    ]);

    // Counters are not changes: a download stamps nothing.
    await recordSoundDownload(db(), a, null);
    expect((await walk(second.at)).seen).toEqual([]);

    await setModerationState(db(), a, 'rejected', null);
    await deleteSound(db(), b);
    const third = await walk(second.at);
    expect(third.seen).toEqual([
      { id: a, kind: 'removed' },
      { id: b, kind: 'removed' },
    ]);
    // From the start, each sound once, at its latest change.
    const all = (await walk(start, 1)).seen;
    expect(all).toEqual([
      { id: a, kind: 'removed' },
      { id: b, kind: 'removed' },
    ]);
  });

  it('stamps public sounds a bulk load left unstamped', async () => {
    const user = await createUser(db(), { username: unique('u') });
    const start = (await walk(FEED_START)).at;
    const id = await newSound(user.id);
    await processed(id);
    await db().deleteFrom('sound_changes').where('sound_id', '=', id).execute();
    expect((await walk(start)).seen).toEqual([]);
    await rebuildSoundChanges(db());
    expect((await walk(start)).seen).toEqual([{ id, kind: 'created' }]);
  });

  it("tells each change's time as the table holds it, to the millisecond, and its position", async () => {
    const user = await createUser(db(), { username: unique('u') });
    const start = await latestSoundChange(db());
    const ids = [await newSound(user.id), await newSound(user.id), await newSound(user.id)];
    for (const id of ids) await processed(id);
    const times = ['2026-01-02 03:04:05.678912+00', '1969-12-31 23:59:59.9995+00', '2031-07-08 09:10:11+00'];
    for (const [i, id] of ids.entries()) {
      await sql`update sound_changes set changed_at = ${times[i]}::timestamptz where sound_id = ${id}`.execute(
        db(),
      );
    }
    const page = await readSoundChanges(db(), start, 10);
    expect(page.map((c) => [c.soundId, c.changedAt.toISOString()])).toEqual([
      [ids[0], '2026-01-02T03:04:05.678Z'],
      [ids[1], '1969-12-31T23:59:59.999Z'],
      [ids[2], '2031-07-08T09:10:11.000Z'],
    ]);
    const { rows } = await sql<{ seq: string }>`
      select seq::text as seq from sound_changes where sound_id = ${ids[2]}`.execute(db());
    expect(page[2].position).toEqual({ seq: rows[0].seq, soundId: ids[2] });
  });

  it('reads a time from its epoch seconds as the driver reads its text, to the millisecond', async () => {
    // Microsecond times from 1900 to 2200, the edges of milliseconds among them.
    const { rows } = await sql<{ at: Date; seconds: number }>`
      select t as at, date_part('epoch', t) as seconds from (
        select timestamptz '1900-01-01 00:00:00+00' + (g * 2311 % 9467) * interval '1 year' / 1000
          + (g % 1000) * interval '1 microsecond' * (case when g % 3 = 0 then 999 else 1 end) as t
        from generate_series(1, 3000) g
        union all select timestamptz '2026-11-29 21:58:28.766+00'
        union all select timestamptz '2026-11-29 21:58:28.765999+00'
        union all select timestamptz '1969-12-31 23:59:59.999999+00') x`.execute(db());
    for (const row of rows) expect(epochDate(row.seconds).toISOString()).toBe(new Date(row.at).toISOString());
  });

  it('reads each shown sound as soundRecordsByIds does, in every column and selection, odd values included', async () => {
    const user = await createUser(db(), { username: unique('u') });
    const start = await latestSoundChange(db());
    const ids = [await newSound(user.id), await newSound(user.id), await newSound(user.id)];
    for (const id of ids) await processed(id);
    const pack = await findOrCreatePack(db(), user.id, unique('pack "quoted", \\ slashed '));
    // What a text or JSON read could tell apart: quotes, backslashes, commas and braces in tags,
    // unicode, floats that are not numbers, a time before 1970 with microseconds, big integers.
    await sql`update sounds set pack_id = ${pack.id}, geotag_lat = -12.345678901234, geotag_lon = 179.999,
        tags = ${['a "b"', 'c\\d', 'e,f', '{g}', 'ñ☕', 'NULL']}::text[], description = ${'line\n"two"\t\u0001'},
        duration = 'NaN', bitrate = 'Infinity', filesize = 9007199254740991, avg_rating = 3.3,
        created = '1969-07-20 20:17:40.123456+00', category_code = 'fx-a'
      where id = ${ids[0]}`.execute(db());
    await sql`update sounds set duration = '-Infinity', bitrate = 1e-300, tags = '{}',
        created = '2026-12-19 20:00:00.0005+00'
      where id = ${ids[1]}`.execute(db());
    await insertSeedVector(db(), { sound_id: ids[0], space: 'test_space', vector: [0.5, 0.25] });
    await insertSeedDescriptors(db(), { sound_id: ids[1], analysis_a: {}, analysis_b: {} });
    const selections: SoundRecordColumn[][] = [
      [...ALL_SOUND_RECORD_COLUMNS],
      ['name'],
      ['created', 'duration', 'bitrate', 'avg_rating'],
      ['username', 'gen_ai_preference', 'pack_name', 'tags'],
      ['similarity_ready', 'analyzed', 'geotag_lat', 'geotag_lon'],
    ];
    for (const columns of selections) {
      const changes = await readSoundChangesWithRecords(db(), start, 10, columns, 'test_space');
      const order = changes.map((c) => c.soundId);
      expect([...order].sort((a, b) => a - b)).toEqual(ids);
      const expected = await soundRecordsByIds(db(), order, 'test_space', columns);
      expect(expected).toHaveLength(3);
      expect(
        changes.map((c) => c.sound),
        columns.join(','),
      ).toEqual(expected);
    }
    const [first] = await soundRecordsByIds(db(), [ids[0]], 'test_space');
    expect(first).toMatchObject({ duration: Number.NaN, bitrate: Number.POSITIVE_INFINITY });
    expect((first.created as Date).toISOString()).toBe('1969-07-20T20:17:40.123Z');
  });

  it('reads a dense set of ids as their range and a sparse one by id, the same rows either way', async () => {
    const user = await createUser(db(), { username: unique('u') });
    const ids: number[] = [];
    for (let i = 0; i < 8; i++) ids.push(await newSound(user.id));
    for (const id of ids) await processed(id);
    await setModerationState(db(), ids[2], 'pending_moderation', null);
    const byId = (rows: Array<{ id: number }>) => [...rows].sort((a, b) => a.id - b.id);
    for (const asked of [
      [ids[0], ids[2], ids[4], ids[6]], // dense: the others of the range are not returned
      [ids[7], ids[1], ids[3]],
      [ids[0], ids[7]], // sparse: read by id
      [1, ids[5]],
      [ids[3]],
    ]) {
      const rows = await soundRecordRowsByJson(db(), asked, 'test_space', ['name', 'created']);
      expect(byId(rows), asked.join(',')).toEqual(
        byId(await soundRecordsByIds(db(), asked, 'test_space', ['name', 'created'])),
      );
    }
  });

  it('hands out cursors that read back, and refuses any other text with the parameter named', () => {
    const position = { seq: '9223372036854775807', soundId: 2147483647 };
    expect(decodeChangeCursor(encodeChangeCursor(position))).toEqual(position);
    expect(() => decodeChangeCursor('bm9wZQ')).toThrow('since: not a cursor this server handed out');
    expect(() => decodeChangeCursor(encodeChangeCursor({ seq: '9223372036854775808', soundId: 1 }))).toThrow(
      /since: not a cursor/,
    );
    expect(() => decodeChangeCursor('', 'cursor')).toThrow(/^cursor: /);
  });
});

describe.skipIf(!postgresUrl)('the sound changes feed under concurrent writers (PostgreSQL server)', () => {
  const { db, unique } = useRepositoryCatalogue('postgres', postgresUrl);

  it('never moves a cursor past a change whose transaction commits later', async () => {
    const user = await createUser(db(), { username: unique('u') });
    const ids: number[] = [];
    for (let i = 0; i < 2; i++) {
      const id = await createSound(db(), {
        userId: user.id,
        name: unique('s'),
        tags: [],
        license: 'Creative Commons 0',
        originalFilename: 'x.wav',
        originalPath: unique('o/'),
        moderationState: 'ok',
      });
      await setProcessingState(db(), id.id, { state: 'Processed' });
      ids.push(id.id);
    }
    const [early, late] = ids;
    // Two edits update the search side tables' shared rows (term counts) and would wait for each
    // other there; this suite's own database keeps its search index out of the way.
    await sql`alter table sounds disable trigger sounds_search_sync_update`.execute(db());
    let at = FEED_START;
    for (
      let page = await readSoundChanges(db(), at, 1000);
      page.length;
      page = await readSoundChanges(db(), at, 1000)
    )
      at = page[page.length - 1].position;

    // The slow transaction writes first (edits `early`) and commits last; the quick one edits
    // `late` and commits meanwhile. A number taken when writing would put them in the other order.
    let release!: () => void;
    let edited!: () => void;
    const editedEarly = new Promise<void>((resolve) => {
      edited = resolve;
    });
    const slow = db()
      .transaction()
      .execute(async (trx) => {
        await editSound(trx, early, { name: 'slow edit' });
        edited();
        await new Promise<void>((resolve) => {
          release = resolve;
        });
      });
    await editedEarly;
    await editSound(db(), late, { name: 'quick edit' });

    const quick = await readSoundChanges(db(), at, 1000);
    expect(quick.map((c) => [c.soundId, c.kind])).toEqual([[late, 'edited']]);
    release();
    await slow;
    // The slow change committed after the cursor moved past the quick one: it comes after it.
    const after = await readSoundChanges(db(), quick[0].position, 1000);
    expect(after.map((c) => [c.soundId, c.kind])).toEqual([[early, 'edited']]);
  });
});
