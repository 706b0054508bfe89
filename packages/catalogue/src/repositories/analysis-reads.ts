import { sql } from 'kysely';
import type { Db } from './shared.ts';
import { publicSoundSql, wherePublic } from './sounds.ts';

/**
 * What the read API and its in-memory similarity state read of the analyses: single columns of
 * `sound_descriptors` (never the whole row: both analysis trees are large) and the vectors.
 */

/** One of the two analyses of a sound (`analysis_a`: variant A's tree, `analysis_b`: variant B's record). */
async function analysisColumn(
  db: Db,
  soundId: number,
  column: 'analysis_a' | 'analysis_b',
): Promise<Record<string, unknown> | undefined> {
  const row = await db
    .selectFrom('sound_descriptors')
    .where('sound_id', '=', soundId)
    .select(column)
    .executeTakeFirst();
  return row?.[column];
}

/** A sound's consolidated (variant B) descriptors, or undefined when it is not analyzed. */
export function consolidatedDescriptors(
  db: Db,
  soundId: number,
): Promise<Record<string, unknown> | undefined> {
  return analysisColumn(db, soundId, 'analysis_b');
}

/** Consolidated descriptors of many sounds at once (lists asking descriptor fields). */
export async function consolidatedDescriptorsOf(
  db: Db,
  soundIds: readonly number[],
): Promise<Map<number, Record<string, unknown>>> {
  if (soundIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('sound_descriptors')
    .where('sound_id', 'in', [...soundIds])
    .select(['sound_id', 'analysis_b'])
    .execute();
  return new Map(rows.map((r) => [r.sound_id, r.analysis_b]));
}

/** A sound's variant A analysis tree, or undefined. */
export function analysisTree(db: Db, soundId: number): Promise<Record<string, unknown> | undefined> {
  return analysisColumn(db, soundId, 'analysis_a');
}

/** Every similarity vector of a sound, by space. */
export function soundVectors(db: Db, soundId: number): Promise<{ space: string; vector: number[] }[]> {
  return db
    .selectFrom('sound_similarity_vectors')
    .where('sound_id', '=', soundId)
    .select(['space', 'vector'])
    .execute();
}

/** A moment as a Date or as PostgreSQL's exact text (see newestMarksExact). */
function at(moment: Date | string) {
  return typeof moment === 'string' ? sql<Date>`${moment}::timestamptz` : moment;
}

/** Newest `updated` of the vector and descriptor tables (the epoch when both are empty). */
export async function newestAnalysisUpdate(db: Db): Promise<Date> {
  const row = await sql<{ t: Date | null }>`select greatest(
        (select max(updated) from sound_similarity_vectors),
        (select max(updated) from sound_descriptors)) as t`.execute(db);
  return row.rows[0]?.t ? new Date(row.rows[0].t) : new Date(0);
}

/** Vectors of public sounds stored after `since`, every space. */
export function publicVectorsUpdatedAfter(
  db: Db,
  since: Date | string,
): Promise<{ id: number; space: string; vector: number[] }[]> {
  return publicSounds(db)
    .innerJoin('sound_similarity_vectors as v', 'v.sound_id', 's.id')
    .where('v.updated', '>', at(since))
    .select(['s.id', 'v.space', 'v.vector'])
    .execute();
}

/** Vectors of the sounds that became public (approved, or processed when already approved) after `since`, every space. */
export function vectorsPublishedAfter(
  db: Db,
  since: Date | string,
): Promise<{ id: number; space: string; vector: number[] }[]> {
  return publicSounds(db)
    .where((eb) => eb.or([eb('s.moderated_at', '>', at(since)), eb('s.processing_updated', '>', at(since))]))
    .innerJoin('sound_similarity_vectors as v', 'v.sound_id', 's.id')
    .select(['s.id', 'v.space', 'v.vector'])
    .execute();
}

/**
 * What the similarity state's descriptor table takes of a sound's analyses: the variant-A tree, and
 * the numbers of the consolidated (variant B) record (its lists and strings stay in the database).
 */
export interface AnalysisForSearch {
  id: number;
  analysis_a: Record<string, unknown>;
  /** Null when the record holds no number. */
  consolidated: Record<string, number> | null;
}

const consolidatedNumbers = sql<Record<string, number> | null>`(select jsonb_object_agg(e.key, e.value)
    from jsonb_each(d.analysis_b) as e where jsonb_typeof(e.value) = 'number')`.as('consolidated');

/** Analyses of the sounds that became public after `since`. */
export function analysesPublishedAfter(db: Db, since: Date | string): Promise<AnalysisForSearch[]> {
  return publicSounds(db)
    .where((eb) => eb.or([eb('s.moderated_at', '>', at(since)), eb('s.processing_updated', '>', at(since))]))
    .innerJoin('sound_descriptors as d', 'd.sound_id', 's.id')
    .select(['s.id', 'd.analysis_a', consolidatedNumbers])
    .execute();
}

/** Analyses of public sounds stored after `since`. */
export function publicAnalysesUpdatedAfter(db: Db, since: Date | string): Promise<AnalysisForSearch[]> {
  return publicSounds(db)
    .innerJoin('sound_descriptors as d', 'd.sound_id', 's.id')
    .where('d.updated', '>', at(since))
    .select(['s.id', 'd.analysis_a', consolidatedNumbers])
    .execute();
}

/** One batch of a space's public vectors in sound id order, after `afterId`. */
export function publicVectorBatch(
  db: Db,
  space: string,
  batch: { afterId: number; limit: number },
): Promise<{ id: number; vector: number[] }[]> {
  return publicSounds(db)
    .innerJoin('sound_similarity_vectors as v', 'v.sound_id', 's.id')
    .where('v.space', '=', space)
    .where('s.id', '>', batch.afterId)
    .select(['s.id', 'v.vector'])
    .orderBy('s.id')
    .limit(batch.limit)
    .execute();
}

/** One batch of public analyses in sound id order, after `afterId`. */
export function publicAnalysisBatch(
  db: Db,
  batch: { afterId: number; limit: number },
): Promise<AnalysisForSearch[]> {
  return publicSounds(db)
    .innerJoin('sound_descriptors as d', 'd.sound_id', 's.id')
    .where('s.id', '>', batch.afterId)
    .select(['s.id', 'd.analysis_a', consolidatedNumbers])
    .orderBy('s.id')
    .limit(batch.limit)
    .execute();
}

function publicSounds(db: Db) {
  return db.selectFrom('sounds as s').$call(wherePublic('s')).where(sql<boolean>`true`);
}

/**
 * Ids of the public sounds that have a vector in `space`, ascending. A loaded index compares its
 * own ids with these to drop sounds deleted or hidden since (deletion leaves no row to follow).
 */
export async function publicVectorIds(db: Db, space: string): Promise<number[]> {
  const rows = await publicSounds(db)
    .innerJoin('sound_similarity_vectors as v', 'v.sound_id', 's.id')
    .where('v.space', '=', space)
    .select('s.id')
    .orderBy('s.id')
    .execute();
  return rows.map((row) => row.id);
}

/**
 * The newest analysis update and the newest publication as PostgreSQL's own text, to the microsecond (a
 * Date keeps milliseconds, so rows stored in the same millisecond would all look newer): what a
 * snapshot records as its position, and what the `…After` reads above accept back. `catalogue`
 * names the database the marks belong to (the cluster's system identifier, the database's name and
 * its oid, which a database dropped and created again under the same name does not keep): marks of one catalogue mean nothing in another, so a snapshot left in a data folder that
 * is later pointed at another database must not be caught up from it.
 */
export async function newestMarksExact(
  db: Db,
): Promise<{ analysed: string; published: string; catalogue: string }> {
  const row = await sql<{ analysed: string; published: string; catalogue: string }>`select
      (select system_identifier::text from pg_control_system()) || '/' || current_database() || '/'
        || (select oid::text from pg_database where datname = current_database()) as catalogue,
      coalesce(greatest((select max(updated) from sound_similarity_vectors),
        (select max(updated) from sound_descriptors)), 'epoch'::timestamptz)::text as analysed,
      coalesce((select max(greatest(s.moderated_at, s.processing_updated)) from sounds s
        where ${publicSoundSql('s')}), 'epoch'::timestamptz)::text as published`.execute(db);
  return row.rows[0];
}
