import { sql } from 'kysely';
import type { User } from '../schema/database.ts';
import type { Db, Page, PageRequest } from './shared.ts';
import { soundRecordRows } from './sound-record-rows.ts';
import type { SoundRecord, SoundRecordColumn } from './sound-record-select.ts';
import { wherePublic } from './sounds.ts';
import { type UserCounts, userCountColumns } from './users.ts';

/**
 * The records the read API shows, as the statements return them: the serializers turn these rows
 * into JSON directly (one reshape). Only public sounds exist here; lists are newest first, then id.
 * These are the API's hot reads: keep their statements as they are (docs/api.md).
 */

export type { SoundRecord, SoundRecordColumn } from './sound-record-select.ts';

/** A user as the API shows one: the row's public columns and the counts. */
export interface UserRecord
  extends Pick<User, 'id' | 'username' | 'about' | 'homepage' | 'avatar_path' | 'date_joined'>,
    UserCounts {}

/**
 * Public sounds by id, in the order asked; ids that are missing or not public are left out. With
 * `columns`, the rows hold only those (and `id`): what a few fields need, without the joins and
 * probes of the others.
 */
export async function soundRecordsByIds(
  db: Db,
  ids: readonly number[],
  defaultSpace: string,
  columns?: Iterable<SoundRecordColumn>,
): Promise<SoundRecord[]> {
  const rows = await soundRecordRows(db, ids, defaultSpace, columns);
  if (ids.length <= 1) return rows;
  const byId = new Map<number, SoundRecord>();
  for (const row of rows) byId.set(row.id, row);
  const ordered: SoundRecord[] = [];
  for (const id of ids) {
    const row = byId.get(id);
    if (row) ordered.push(row);
  }
  return ordered;
}

/** A user by name, whatever its case. */
export function userRecordByName(db: Db, username: string): Promise<UserRecord | undefined> {
  return db
    .selectFrom('users as u')
    .where(sql`lower(u.username)`, '=', username.toLowerCase())
    .select([
      'u.id',
      'u.username',
      'u.about',
      'u.homepage',
      'u.avatar_path',
      'u.date_joined',
      ...userCountColumns(sql.ref('u.id')),
    ])
    .executeTakeFirst();
}

/** The account behind an OAuth2 token (`/apiv2/me/`): the public user record plus the e-mail address. */
export function accountRecordById(
  db: Db,
  userId: number,
): Promise<(UserRecord & { email: string }) | undefined> {
  return db
    .selectFrom('users as u')
    .where('u.id', '=', userId)
    .select([
      'u.id',
      'u.username',
      'u.email',
      'u.about',
      'u.homepage',
      'u.avatar_path',
      'u.date_joined',
      ...userCountColumns(sql.ref('u.id')),
    ])
    .executeTakeFirst();
}

/** Ids of the user's public sounds, one page. */
export function publicSoundIdsByUser(db: Db, userId: number, page: PageRequest): Promise<Page<number>> {
  return publicSoundIds(db, 'user_id', userId, page);
}

/** Ids of the pack's public sounds, one page. */
export function publicSoundIdsByPack(db: Db, packId: number, page: PageRequest): Promise<Page<number>> {
  return publicSoundIds(db, 'pack_id', packId, page);
}

async function publicSoundIds(
  db: Db,
  column: 'user_id' | 'pack_id',
  value: number,
  page: PageRequest,
): Promise<Page<number>> {
  const base = db.selectFrom('sounds as s').$call(wherePublic('s')).where(`s.${column}`, '=', value);
  const [{ count }] = await base.select(sql<number>`count(*)::int`.as('count')).execute();
  if (page.limit === 0) return { count, items: [] };
  const rows = await base
    .select('s.id')
    .orderBy('s.created', 'desc')
    .orderBy('s.id', 'desc')
    .offset(page.offset)
    .limit(page.limit)
    .execute();
  return { count, items: rows.map((r) => r.id) };
}

/** Where a sound's stored files are (kind → path relative to DATA_DIR), whatever its state. */
export async function soundMediaPaths(db: Db, soundId: number): Promise<Record<string, string> | undefined> {
  const row = await db
    .selectFrom('sounds')
    .where('id', '=', soundId)
    .select('media_paths')
    .executeTakeFirst();
  return row?.media_paths ?? undefined;
}

/** The id of the user who uploaded a sound, whatever its state; undefined for no such sound. */
export async function soundUploaderId(db: Db, soundId: number): Promise<number | undefined> {
  const row = await db.selectFrom('sounds').where('id', '=', soundId).select('user_id').executeTakeFirst();
  return row?.user_id;
}

/** Public sounds after `afterId`, by id, at most `limit`: a walk over the whole public catalogue. */
export async function publicSoundRecordsAfter(
  db: Db,
  afterId: number,
  limit: number,
  defaultSpace: string,
): Promise<SoundRecord[]> {
  const rows = await db
    .selectFrom('sounds as s')
    .select('s.id')
    .$call(wherePublic('s'))
    .where('s.id', '>', afterId)
    .orderBy('s.id')
    .limit(limit)
    .execute();
  return soundRecordsByIds(
    db,
    rows.map((r) => r.id),
    defaultSpace,
  );
}
