import { sql } from 'kysely';
import { type CursorPosition, decodePositionCursor, encodePositionCursor } from './position-cursor.ts';
import { type Db, inTransaction } from './shared.ts';

/**
 * Frozen results of cursor walks (migration `*-list-walks`, docs/api.md "Cursor paging"): a list's
 * whole order taken once, then read a page at a time by any process. The catalogue keeps the ids
 * and each hit's details (opaque JSON: what the search said of the hit besides its id) and knows
 * nothing of what the list was; `listKey` is the caller's name for it, checked on every read so a
 * cursor never continues another list.
 */

/** Ids per stored chunk: a page (at most 150) spans one or two. */
export const LIST_WALK_CHUNK = 1000;

export interface ListWalkLimits {
  /** Seconds a walk is kept after its latest page. */
  idleSeconds: number;
  /** Most ids all walks together keep: starting a walk drops the least recently read ones beyond it. */
  maxStoredIds: number;
}

/** A result in its order; `details[i]`, when given, belongs to `ids[i]`. */
export interface FrozenList {
  ids: readonly number[];
  details?: readonly unknown[];
}

/** A stretch of a walk's list and its length. */
export interface ListWalkSlice {
  total: number;
  ids: number[];
  details?: unknown[];
}

/** Rows per insert statement: 50 chunks, 50,000 ids. */
const CHUNKS_PER_STATEMENT = 50;

/**
 * Stores a list and returns its walk's id (a bigint as text). Expired walks, and the least recently
 * read ones beyond `maxStoredIds` with this one counted, are deleted first.
 */
export async function startListWalk(
  db: Db,
  listKey: string,
  list: FrozenList,
  limits: ListWalkLimits,
): Promise<string> {
  const total = list.ids.length;
  return inTransaction(db, async (trx) => {
    await sql`delete from list_walks where id in (
        select w.id from (
          select id, expires_at, sum(total) over (order by expires_at desc, id desc) as kept from list_walks
        ) w where w.expires_at <= now() or w.kept > ${Math.max(0, limits.maxStoredIds - total)})`.execute(
      trx,
    );
    const { rows } = await sql<{ id: string }>`
      insert into list_walks (list_key, total, expires_at)
      values (${listKey}, ${total}, now() + make_interval(secs => ${limits.idleSeconds}))
      returning id::text as id`.execute(trx);
    const walkId = rows[0].id;
    const chunks = [];
    for (let start = 0; start < total; start += LIST_WALK_CHUNK) {
      const end = start + LIST_WALK_CHUNK;
      const details = list.details ? JSON.stringify(list.details.slice(start, end)) : null;
      chunks.push(
        sql`(${walkId}::bigint, ${start / LIST_WALK_CHUNK}::int, ${list.ids.slice(start, end)}::int[], ${details}::text)`,
      );
    }
    for (let i = 0; i < chunks.length; i += CHUNKS_PER_STATEMENT) {
      await sql`insert into list_walk_chunks (walk_id, chunk, ids, details)
        values ${sql.join(chunks.slice(i, i + CHUNKS_PER_STATEMENT))}`.execute(trx);
    }
    return walkId;
  });
}

/**
 * `limit` entries of a walk from `offset`, keeping the walk another `idleSeconds`; `unknown` when
 * it expired, was dropped or never existed, `other-list` when it is not the walk of `listKey`.
 */
export async function readListWalk(
  db: Db,
  walkId: string,
  listKey: string,
  window: { offset: number; limit: number },
  limits: Pick<ListWalkLimits, 'idleSeconds'>,
): Promise<ListWalkSlice | 'unknown' | 'other-list'> {
  const first = Math.floor(window.offset / LIST_WALK_CHUNK);
  const last = Math.floor((window.offset + Math.max(1, window.limit) - 1) / LIST_WALK_CHUNK);
  // Only the window's part of each chunk, as JSON (parsed natively, not element by element as an
  // array's text is): a page of 150 reads 150 ids and details, not the 1000 or 2000 of its chunks.
  const end = window.offset + window.limit;
  const { rows } = await sql<{
    list_key: string;
    total: number;
    stale: boolean;
    ids: number[] | null;
    details: unknown[] | null;
  }>`
    select w.list_key, w.total,
      w.expires_at < now() + make_interval(secs => ${limits.idleSeconds / 2}) as stale,
      to_json(c.ids[greatest(${window.offset}::int - c.chunk * ${LIST_WALK_CHUNK}, 0) + 1
        : least(${end}::int - c.chunk * ${LIST_WALK_CHUNK}, ${LIST_WALK_CHUNK})]) as ids,
      case when c.details is not null then coalesce(
        (select json_agg(d.value order by d.n)
          from json_array_elements(c.details::json) with ordinality d(value, n)
          where d.n > ${window.offset}::int - c.chunk * ${LIST_WALK_CHUNK}
            and d.n <= ${end}::int - c.chunk * ${LIST_WALK_CHUNK}),
        '[]'::json) end as details
    from list_walks w
    left join list_walk_chunks c on c.walk_id = w.id and c.chunk between ${first} and ${last}
    where w.id = ${walkId}::bigint and w.expires_at > now()
    order by c.chunk`.execute(db);
  if (rows.length === 0) return 'unknown';
  if (rows[0].list_key !== listKey) return 'other-list';
  // Kept alive by use; written at most twice per idle period, not on every page.
  if (rows[0].stale) {
    await sql`update list_walks set expires_at = now() + make_interval(secs => ${limits.idleSeconds})
      where id = ${walkId}::bigint`.execute(db);
  }
  const slice: ListWalkSlice = { total: rows[0].total, ids: [] };
  for (const row of rows) for (const id of row.ids ?? []) slice.ids.push(id);
  if (rows.some((r) => r.details)) slice.details = rows.flatMap((r) => r.details ?? []);
  return slice;
}

/** Walks per delete statement of `pruneListWalks` (their chunks go with them). */
const PRUNE_BATCH = 100;

/**
 * Deletes the walks whose keeping time has passed, chunks and all, `batch` walks per statement so
 * no statement holds many locks for long: the workers' scheduled upkeep (`list_walks_upkeep`), so
 * that an expired walk's ids leave the catalogue even when no new walk starts. Returns how many
 * walks, and ids, went.
 */
export async function pruneListWalks(db: Db, batch = PRUNE_BATCH): Promise<{ walks: number; ids: number }> {
  const removed = { walks: 0, ids: 0 };
  for (;;) {
    const { rows } = await sql<{ walks: number; ids: string | null }>`
      with gone as (
        delete from list_walks where id in (
          select id from list_walks where expires_at <= now() order by expires_at limit ${batch})
        returning total)
      select count(*)::int as walks, sum(total)::text as ids from gone`.execute(db);
    const walks = Number(rows[0]?.walks ?? 0);
    removed.walks += walks;
    removed.ids += Number(rows[0]?.ids ?? 0);
    if (walks < batch) return removed;
  }
}

/** Where a walk's reader stands: the walk and the position of the next entry. */
export interface ListWalkPosition {
  walkId: string;
  offset: number;
}

/** A walk position as the API's opaque `cursor` (the changes feed's encoding, kind `w`). */
export function encodeWalkCursor(position: ListWalkPosition): string {
  return encodePositionCursor('w', { major: position.walkId, minor: position.offset });
}

/** Reads a cursor `encodeWalkCursor` made; anything else is a 400 naming the parameter. */
export function decodeWalkCursor(cursor: string, parameter = 'cursor'): ListWalkPosition {
  const position: CursorPosition = decodePositionCursor('w', cursor, parameter);
  return { walkId: position.major, offset: position.minor };
}
