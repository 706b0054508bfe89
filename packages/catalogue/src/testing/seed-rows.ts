import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../repositories/shared.ts';
import type {
  CommentsTable,
  PacksTable,
  SoundSimilarityVectorsTable,
  SoundsTable,
  UsersTable,
} from '../schema/database.ts';

/**
 * Row writers for seeds of other packages' tests, which need rows no use case writes as such
 * (fixed dates, sounds already processed, a reference analysis): test tooling of the catalogue, so
 * that the SQL stays in the catalogue.
 */

export async function insertSeedUser(db: Db, row: Insertable<UsersTable>): Promise<number> {
  return (await db.insertInto('users').values(row).returning('id').executeTakeFirstOrThrow()).id;
}

export async function insertSeedPack(db: Db, row: Insertable<PacksTable>): Promise<number> {
  return (await db.insertInto('packs').values(row).returning('id').executeTakeFirstOrThrow()).id;
}

export async function insertSeedSound(db: Db, row: Insertable<SoundsTable>): Promise<number> {
  return (await db.insertInto('sounds').values(row).returning('id').executeTakeFirstOrThrow()).id;
}

export async function updateSeedSound(db: Db, id: number, set: Updateable<SoundsTable>): Promise<void> {
  await db.updateTable('sounds').set(set).where('id', '=', id).execute();
}

/** A sound's descriptor row: both analyses and whichever descriptor columns the seed fills. */
export async function insertSeedDescriptors(
  db: Db,
  row: { sound_id: number; analysis_a: unknown; analysis_b: unknown } & Record<string, unknown>,
): Promise<void> {
  await db
    .insertInto('sound_descriptors')
    .values(row as never)
    .execute();
}

export async function insertSeedVector(db: Db, row: Insertable<SoundSimilarityVectorsTable>): Promise<void> {
  await db.insertInto('sound_similarity_vectors').values(row).execute();
}

export async function insertSeedComment(db: Db, row: Insertable<CommentsTable>): Promise<void> {
  await db.insertInto('comments').values(row).execute();
}
