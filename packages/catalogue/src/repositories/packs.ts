import { type ExpressionBuilder, sql } from 'kysely';
import type { Database, Pack } from '../schema/database.ts';
import type { Db, Page, PageRequest } from './shared.ts';
import { isPublic } from './sounds.ts';

/** A pack with what the contract shows besides its row. */
export interface PackView extends Pack {
  username: string;
  /** Public sounds in the pack. */
  num_sounds: number;
}

const publicSoundCount = (eb: ExpressionBuilder<Database, 'packs'>) =>
  eb
    .selectFrom('sounds')
    .select(eb.fn.countAll<number>().as('n'))
    .whereRef('sounds.pack_id', '=', 'packs.id')
    .where(isPublic)
    .as('num_sounds');

/**
 * A pack is public while it holds a public sound: one whose sounds are all waiting for processing
 * or moderation (or gone) is in no public list or page, as its sounds are not.
 */
const holdsPublicSound = (eb: ExpressionBuilder<Database, 'packs'>) =>
  eb.exists(
    eb
      .selectFrom('sounds')
      .select(sql.lit(1).as('one'))
      .whereRef('sounds.pack_id', '=', 'packs.id')
      .where(isPublic),
  );

/** The public packs, as the contract shows them. */
function packViews(db: Db) {
  return db
    .selectFrom('packs')
    .innerJoin('users', 'users.id', 'packs.user_id')
    .selectAll('packs')
    .select('users.username')
    .select(publicSoundCount)
    .where(holdsPublicSound);
}

/** The user's pack of that name, created when the user has none (the upload rule). */
export async function findOrCreatePack(db: Db, userId: number, name: string): Promise<Pack> {
  const inserted = await db
    .insertInto('packs')
    .values({ user_id: userId, name })
    .onConflict((oc) => oc.columns(['user_id', 'name']).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) return inserted;
  return db
    .selectFrom('packs')
    .selectAll()
    .where('user_id', '=', userId)
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
}

/** A public pack (see holdsPublicSound); undefined for an unknown one or one without a public sound. */
export async function getPack(db: Db, packId: number): Promise<PackView | undefined> {
  const row = await packViews(db).where('packs.id', '=', packId).executeTakeFirst();
  return row && { ...row, num_sounds: Number(row.num_sounds) };
}

/** The user's public packs, newest first. */
export async function listPacksByUser(db: Db, userId: number, page: PageRequest): Promise<Page<PackView>> {
  const [{ count }, rows] = await Promise.all([
    db
      .selectFrom('packs')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('user_id', '=', userId)
      .where(holdsPublicSound)
      .executeTakeFirstOrThrow(),
    packViews(db)
      .where('packs.user_id', '=', userId)
      .orderBy('packs.created', 'desc')
      .orderBy('packs.id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
  ]);
  return { count: Number(count), items: rows.map((r) => ({ ...r, num_sounds: Number(r.num_sounds) })) };
}

export async function updatePack(
  db: Db,
  packId: number,
  changes: { name?: string; description?: string },
): Promise<void> {
  const set: { name?: string; description?: string } = {};
  if (changes.name !== undefined) set.name = changes.name;
  if (changes.description !== undefined) set.description = changes.description;
  if (Object.keys(set).length) await db.updateTable('packs').set(set).where('id', '=', packId).execute();
}

export async function deletePack(db: Db, packId: number): Promise<void> {
  await db.deleteFrom('packs').where('id', '=', packId).execute();
}
