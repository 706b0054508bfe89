import { ValidationError } from '@earshot/common';
import { sql } from 'kysely';
import type { UserEventKind } from '../schema/database.ts';
import type { Db } from './shared.ts';

/**
 * Where a reader of the events stands: after the event `id` whose transaction took the number `seq`
 * at commit (both bigints kept as decimal text). Events are read in (seq, id) order, which is the
 * order they committed in (migration `*-user-events`).
 */
export interface UserEventPosition {
  seq: string;
  id: string;
}

/** An event about one of a user's sounds, as written by the change's own transaction. */
export interface UserEvent {
  /** Unique and stable: a receiver drops a delivery it has seen by this id. */
  id: string;
  userId: number;
  soundId: number;
  kind: UserEventKind;
  data: Record<string, unknown>;
  created: Date;
  position: UserEventPosition;
}

/** Before every event. */
export const EVENTS_START: UserEventPosition = { seq: '0', id: '0' };

interface EventRow {
  id: string;
  user_id: number;
  sound_id: number;
  kind: UserEventKind;
  data: Record<string, unknown> | string;
  created: Date;
  position_seq: string;
}

function toEvent(r: EventRow): UserEvent {
  return {
    id: r.id,
    userId: r.user_id,
    soundId: r.sound_id,
    kind: r.kind,
    data: typeof r.data === 'string' ? (JSON.parse(r.data) as Record<string, unknown>) : r.data,
    created: new Date(r.created),
    position: { seq: r.position_seq, id: r.id },
  };
}

/**
 * The committed events after `after`, in commit order, at most `limit`: of one user when `userId`
 * is given, of the `kinds` given when they are.
 */
export async function readUserEvents(
  db: Db,
  options: { after: UserEventPosition; limit: number; userId?: number; kinds?: readonly UserEventKind[] },
): Promise<UserEvent[]> {
  const { after, limit, userId, kinds } = options;
  const { rows } = await sql<EventRow>`
    select e.id::text as id, e.user_id, e.sound_id, e.kind, e.data, e.created, e.seq::text as position_seq
    from user_events e
    where (e.seq, e.id) > (${after.seq}::bigint, ${after.id}::bigint)
      ${userId === undefined ? sql`` : sql`and e.user_id = ${userId}`}
      ${kinds === undefined ? sql`` : sql`and e.kind = any(${[...kinds]}::text[])`}
    order by e.seq, e.id
    limit ${limit}`.execute(db);
  return rows.map(toEvent);
}

/** The position of the latest committed event: a reader starting there sees only later ones. */
export async function latestUserEventPosition(db: Db): Promise<UserEventPosition> {
  const { rows } = await sql<{ position_seq: string; id: string }>`
    select e.seq::text as position_seq, e.id::text as id from user_events e
    where e.seq is not null order by e.seq desc, e.id desc limit 1`.execute(db);
  return rows.length ? { seq: rows[0].position_seq, id: rows[0].id } : EVENTS_START;
}

/** The opaque text of a position (the event stream's `id:` lines and `Last-Event-ID`). */
export function encodeEventPosition(position: UserEventPosition): string {
  return Buffer.from(`${position.seq}.${position.id}`).toString('base64url');
}

const POSITION_TEXT = /^(\d{1,19})\.(\d{1,19})$/;

/** Reads a position `encodeEventPosition` made; anything else is a 400 naming where it came from. */
export function decodeEventPosition(text: string, parameter: string): UserEventPosition {
  const match = POSITION_TEXT.exec(Buffer.from(text, 'base64url').toString('latin1'));
  if (!match || BigInt(match[1]) >= 2n ** 63n || BigInt(match[2]) >= 2n ** 63n)
    throw new ValidationError(`${parameter}: not an event id this server handed out`);
  return { seq: BigInt(match[1]).toString(), id: BigInt(match[2]).toString() };
}

/** a < b in the events' order. */
export function isBeforeEvent(a: UserEventPosition, b: UserEventPosition): boolean {
  const [as, bs] = [BigInt(a.seq), BigInt(b.seq)];
  return as < bs || (as === bs && BigInt(a.id) < BigInt(b.id));
}

/**
 * Removes, oldest first and `batch` rows per statement, the events committed before `before` that
 * no switched-on webhook still has to deliver (one switched off holds nothing back). Returns how
 * many went. The same statement notes, per user and kind, the latest event removed
 * (`user_event_removals`), so an event stream resuming before it is told it missed events
 * (`eventResume`).
 */
export async function pruneUserEvents(db: Db, before: Date, batch = 5_000): Promise<number> {
  let removed = 0;
  for (;;) {
    const { rows } = await sql<{ n: number }>`
      with gone as (
        delete from user_events where id in (
          select e.id from user_events e
          where e.created < ${before} and e.seq is not null
            and not exists (
              select 1 from webhooks w
              where w.user_id = e.user_id and w.disabled_at is null and e.kind = any(w.kinds)
                and (e.seq, e.id) > (w.after_seq, w.after_event))
          order by e.seq, e.id
          limit ${batch})
        returning user_id, kind, seq, id),
      latest as (
        select distinct on (user_id, kind) user_id, kind, seq, id from gone
        order by user_id, kind, seq desc, id desc),
      noted as (
        insert into user_event_removals (user_id, kind, through_seq, through_id)
        select user_id, kind, seq, id from latest
        on conflict (user_id, kind) do update
          set through_seq = excluded.through_seq, through_id = excluded.through_id
          where (excluded.through_seq, excluded.through_id)
            > (user_event_removals.through_seq, user_event_removals.through_id))
      select count(*)::int as n from gone`.execute(db);
    const n = Number(rows[0]?.n ?? 0);
    removed += n;
    if (n < batch) return removed;
  }
}

/** What a stream resuming after a position needs to know before it goes on (`eventResume`). */
export interface EventResume {
  /** The position names no event this catalogue wrote: not kept, not removed, or after the latest. */
  unknown: boolean;
  /** The latest event of the user (of the kinds) removed after the position; null: none was. */
  removedThrough: UserEventPosition | null;
  /** The oldest event of the user (of the kinds) still kept after the position; null: none yet. */
  oldestKept: UserEventPosition | null;
}

function readPosition(text: string | null): UserEventPosition | null {
  if (text === null) return null;
  const [seq, id] = text.split('.');
  return { seq, id };
}

/**
 * Checks a stream's resume position for one user and the kinds it follows: whether this catalogue
 * ever wrote an event there (the start, an event still kept, or a place the retention removed
 * events at or after), and whether the retention removed any of the user's events after it (the
 * stream then missed them). One statement.
 */
export async function eventResume(
  db: Db,
  options: { userId: number; after: UserEventPosition; kinds: readonly UserEventKind[] },
): Promise<EventResume> {
  const { userId, after, kinds } = options;
  const at = sql`(${after.seq}::bigint, ${after.id}::bigint)`;
  const { rows } = await sql<{
    kept: boolean;
    covered: boolean;
    removed: string | null;
    oldest: string | null;
  }>`
    select
      exists(select 1 from user_events e where e.seq = ${after.seq}::bigint and e.id = ${after.id}::bigint) as kept,
      exists(select 1 from user_event_removals r where (r.through_seq, r.through_id) >= ${at}) as covered,
      (select r.through_seq::text || '.' || r.through_id::text from user_event_removals r
        where ((r.user_id = ${userId} and r.kind = any(${[...kinds]}::text[])) or (r.user_id = 0 and r.kind = '*'))
          and (r.through_seq, r.through_id) > ${at}
        order by r.through_seq desc, r.through_id desc limit 1) as removed,
      (select e.seq::text || '.' || e.id::text from user_events e
        where e.user_id = ${userId} and e.kind = any(${[...kinds]}::text[]) and (e.seq, e.id) > ${at}
        order by e.seq, e.id limit 1) as oldest`.execute(db);
  const row = rows[0];
  const start = after.seq === EVENTS_START.seq && after.id === EVENTS_START.id;
  return {
    unknown: !(start || row.kept || row.covered),
    removedThrough: readPosition(row.removed),
    oldestKept: readPosition(row.oldest),
  };
}
