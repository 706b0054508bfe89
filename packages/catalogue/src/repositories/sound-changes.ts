import { CompiledQuery, sql } from 'kysely';
import { PREPARED_MARK } from '../connection/prepared-statements.ts';
import type { SoundChangeKind } from '../schema/database.ts';
import { decodePositionCursor, encodePositionCursor } from './position-cursor.ts';
import type { Db } from './shared.ts';
import { soundRecordRowsByJson } from './sound-record-rows.ts';
import type { SoundRecord, SoundRecordColumn } from './sound-record-select.ts';
import { epochDate } from './sound-record-select.ts';

/**
 * Where a reader of the changes feed stands: after the change of `soundId` numbered `seq` (the
 * number its transaction took at commit; a bigint kept as decimal text). The feed is ordered by
 * (seq, sound id).
 */
export interface SoundChangePosition {
  seq: string;
  soundId: number;
}

/** The latest public change of one sound (migration `*-sound-changes`). */
export interface SoundChange {
  soundId: number;
  kind: SoundChangeKind;
  changedAt: Date;
  position: SoundChangePosition;
}

/** A change as the page's JSON holds it: sound id, seq (as text), kind, epoch seconds. */
type ChangeTuple = [number, string, SoundChangeKind, number];

const CHANGES_PAGE_SQL = `${PREPARED_MARK}
select json_agg(json_build_array(c.sound_id, c.seq::text, c.kind, date_part('epoch', c.changed_at))
    order by c.seq, c.sound_id) as page
from (select c.sound_id, c.seq, c.kind, c.changed_at from sound_changes c
  where (c.seq, c.sound_id) > ($1::bigint, $2::int)
  order by c.seq, c.sound_id
  limit $3) c`;

/** Before every change: where a harvest from scratch starts. */
export const FEED_START: SoundChangePosition = { seq: '0', soundId: 0 };

/**
 * The changes after `after`, in the order they committed, at most `limit`. A change committing
 * later is always after the last position returned here (the migration says why). A sound appears
 * once, at its latest change.
 */
export async function readSoundChanges(
  db: Db,
  after: SoundChangePosition,
  limit: number,
): Promise<SoundChange[]> {
  // The page as one JSON value, which the driver hands to JSON.parse: several times cheaper than
  // reading as many rows. Planned for its limit on every run: a generic plan's guess at the limit
  // (a tenth of the table) would have a large catalogue's page JIT-compiled.
  const { rows } = await db.executeQuery<{ page: ChangeTuple[] | null }>(
    CompiledQuery.raw(CHANGES_PAGE_SQL, [after.seq, after.soundId, limit]),
  );
  const page = rows[0]?.page ?? [];
  const changes: SoundChange[] = new Array(page.length);
  for (let i = 0; i < page.length; i++) {
    const [soundId, seq, kind, seconds] = page[i];
    changes[i] = { soundId, kind, changedAt: epochDate(seconds), position: { seq, soundId } };
  }
  return changes;
}

/** A change with the sound as the public sees it now; no sound: removed, or not public any more. */
export interface SoundChangeWithRecord extends SoundChange {
  /** Holds `id` and the columns asked, nothing else. */
  sound?: SoundRecord;
}

/**
 * `readSoundChanges` with each changed sound's record: only `columns` of it (and `id`), so a
 * harvester asking for a few fields costs no join or probe it does not need. The record holds
 * exactly what `soundRecordsByIds` holds in those columns. A change that is not a removal carries
 * no sound when the sound is not public now (it was hidden or deleted after the change; that later
 * change follows in the feed). Two statements, each answering one JSON value: joined in one, the
 * planner hashed the whole sounds table or, looking up each sound, estimated a cost that had the
 * page JIT-compiled, either way several times the cost of the two.
 */
export async function readSoundChangesWithRecords(
  db: Db,
  after: SoundChangePosition,
  limit: number,
  columns: Iterable<SoundRecordColumn>,
  defaultSpace: string,
): Promise<SoundChangeWithRecord[]> {
  const changes: SoundChangeWithRecord[] = await readSoundChanges(db, after, limit);
  const shown: number[] = [];
  for (const change of changes) if (change.kind !== 'removed') shown.push(change.soundId);
  const rows = await soundRecordRowsByJson(db, shown, defaultSpace, columns);
  const byId = new Map<number, SoundRecord>();
  for (const row of rows) byId.set(row.id, row);
  for (const change of changes) {
    const sound = byId.get(change.soundId);
    if (sound) change.sound = sound;
  }
  return changes;
}

/** Numbers every public sound without a change as created: after a bulk load with triggers off. */
export async function rebuildSoundChanges(db: Db): Promise<void> {
  await sql`select sound_changes_rebuild()`.execute(db);
}

/** The opaque text of a position, as the feed hands it out (`since`, `cursor`). */
export function encodeChangeCursor(position: SoundChangePosition): string {
  return encodePositionCursor('', { major: position.seq, minor: position.soundId });
}

/** Reads a cursor `encodeChangeCursor` made; anything else is a 400 naming the parameter. */
export function decodeChangeCursor(cursor: string, parameter = 'since'): SoundChangePosition {
  const { major, minor } = decodePositionCursor('', cursor, parameter);
  return { seq: major, soundId: minor };
}

/** The position after the latest committed change: a reader starting there sees only later ones. */
export async function latestSoundChange(db: Db): Promise<SoundChangePosition> {
  const { rows } = await sql<{ position_seq: string; sound_id: number }>`
    select c.seq::text as position_seq, c.sound_id from sound_changes c
    where c.seq is not null order by c.seq desc, c.sound_id desc limit 1`.execute(db);
  return rows.length ? { seq: rows[0].position_seq, soundId: rows[0].sound_id } : FEED_START;
}

/** The latest committed change (its position and time), or undefined before any. */
export async function lastSoundChange(
  db: Db,
): Promise<{ position: SoundChangePosition; changedAt: Date } | undefined> {
  const { rows } = await sql<{ position_seq: string; sound_id: number; changed_at: Date }>`
    select c.seq::text as position_seq, c.sound_id, c.changed_at from sound_changes c
    where c.seq is not null order by c.seq desc, c.sound_id desc limit 1`.execute(db);
  if (!rows.length) return undefined;
  return {
    position: { seq: rows[0].position_seq, soundId: rows[0].sound_id },
    changedAt: new Date(rows[0].changed_at),
  };
}

/** Whether position `a` is after `b` in the feed's order. */
export function isAfterChange(a: SoundChangePosition, b: SoundChangePosition): boolean {
  const seqA = BigInt(a.seq);
  const seqB = BigInt(b.seq);
  return seqA > seqB || (seqA === seqB && a.soundId > b.soundId);
}
