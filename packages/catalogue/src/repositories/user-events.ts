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
 * many went. An event stream resuming before the oldest kept event continues from there.
 */
export async function pruneUserEvents(db: Db, before: Date, batch = 5_000): Promise<number> {
  let removed = 0;
  for (;;) {
    const result = await sql`
      delete from user_events where id in (
        select e.id from user_events e
        where e.created < ${before} and e.seq is not null
          and not exists (
            select 1 from webhooks w
            where w.user_id = e.user_id and w.disabled_at is null and e.kind = any(w.kinds)
              and (e.seq, e.id) > (w.after_seq, w.after_event))
        order by e.seq, e.id
        limit ${batch})`.execute(db);
    const n = Number(result.numAffectedRows ?? 0);
    removed += n;
    if (n < batch) return removed;
  }
}
