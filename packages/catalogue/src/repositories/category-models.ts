import { sql } from 'kysely';
import { categoryCode, categoryNames } from '../schema/taxonomy.ts';
import type { Db } from './shared.ts';

/** A space's stored category model, as saved (the model itself is checked by core's parseCategoryModel). */
export interface StoredCategoryModel {
  space: string;
  model: unknown;
  labelledSounds: number;
  trainedAt: Date;
}

export async function getCategoryModel(db: Db, space: string): Promise<StoredCategoryModel | undefined> {
  const row = await db
    .selectFrom('category_models')
    .selectAll()
    .where('space', '=', space)
    .executeTakeFirst();
  return row && { space, model: row.model, labelledSounds: row.labelled_sounds, trainedAt: row.trained_at };
}

/** Replaces the space's model (one per space: the newest wins). */
export async function saveCategoryModel(
  db: Db,
  space: string,
  model: object,
  labelledSounds: number,
): Promise<void> {
  const values = {
    model: model as Record<string, unknown>,
    labelled_sounds: labelledSounds,
    trained_at: new Date(),
  };
  await db
    .insertInto('category_models')
    .values({ space, ...values })
    .onConflict((oc) => oc.column('space').doUpdateSet(values))
    .execute();
}

/** Sounds joined with their vector in `space` (a sound without one cannot be classified). */
function soundsWithVector(db: Db, space: string) {
  return db
    .selectFrom('sounds as s')
    .innerJoin('sound_similarity_vectors as v', 'v.sound_id', 's.id')
    .where('v.space', '=', space);
}

/**
 * The sounds a category model learns from: a category their uploader gave (its code is the label),
 * a vector in `space`, not rejected by moderation.
 */
function labelledSounds(db: Db, space: string) {
  return soundsWithVector(db, space)
    .where('s.category_is_user_provided', '=', true)
    .where('s.category_code', 'is not', null)
    .where('s.moderation_state', '!=', 'rejected');
}

export async function countLabelledSounds(db: Db, space: string): Promise<number> {
  const row = await labelledSounds(db, space)
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * The labelled sounds' vectors, at most `perLabel` per label (a label with more is thinned evenly
 * over its ids, in the database, so a large catalogue's vectors are not all read), in id order.
 */
export async function listLabelledVectors(
  db: Db,
  space: string,
  perLabel: number,
): Promise<Array<{ soundId: number; label: string; vector: number[] }>> {
  const ranked = labelledSounds(db, space).select((eb) => [
    's.id',
    's.category_code',
    sql<number>`row_number() over (partition by s.category_code order by s.id)`.as('rank'),
    eb.fn
      .countAll<number>()
      .over((ob) => ob.partitionBy('s.category_code'))
      .as('total'),
  ]);
  // Row `rank` is kept when it starts a new one of `perLabel` equal steps through the label's rows
  // (every row when the label has no more than `perLabel`).
  const rows = await db
    .selectFrom(ranked.as('r'))
    .innerJoin('sound_similarity_vectors as v', 'v.sound_id', 'r.id')
    .where('v.space', '=', space)
    .where(
      sql<boolean>`floor((r.rank - 1) * ${perLabel}::float8 / r.total) <> floor((r.rank - 2) * ${perLabel}::float8 / r.total)`,
    )
    .select(['r.id', 'r.category_code', 'v.vector'])
    .orderBy('r.id')
    .execute();
  return rows.map((r) => ({ soundId: r.id, label: r.category_code ?? '', vector: r.vector }));
}

/** A page (by id, after `afterId`) of the sounds whose category is estimated or missing, with their vector in `space`. */
export function listUnlabelledVectors(
  db: Db,
  space: string,
  afterId: number,
  limit: number,
): Promise<Array<{ id: number; vector: number[] }>> {
  return soundsWithVector(db, space)
    .where('s.category_is_user_provided', '=', false)
    .where('s.id', '>', afterId)
    .select(['s.id', 'v.vector'])
    .orderBy('s.id')
    .limit(limit)
    .execute();
}

/**
 * Sets (or, with null, clears) a sound's estimated category: `category_is_user_provided` stays
 * false. Only where the uploader gave none: the guard is in the UPDATE itself, so an uploader's
 * category saved meanwhile is never overwritten. An unknown code is refused. Returns whether the
 * sound changed (an estimate equal to the stored one writes nothing).
 */
export async function setEstimatedCategory(db: Db, soundId: number, code: string | null): Promise<boolean> {
  const names = code === null ? { category: null, subcategory: null } : categoryNames(code);
  if (!names) throw new Error(`"${code}" is not a broad sound taxonomy code`);
  const result = await db
    .updateTable('sounds')
    .set({
      category: names.category,
      subcategory: names.subcategory,
      category_code: categoryCode(names.category, names.subcategory),
    })
    .where('id', '=', soundId)
    .where('category_is_user_provided', '=', false)
    .where((eb) =>
      eb.or([
        eb('category', 'is distinct from', names.category),
        eb('subcategory', 'is distinct from', names.subcategory),
      ]),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
