import type { VariantATree, VariantB } from '@earshot/core';
import { sql } from 'kysely';
import type { SoundDescriptors } from '../schema/database.ts';
import { ALL_DESCRIPTOR_COLUMNS, type DescriptorValues } from '../schema/descriptors.ts';
import { analysisTree } from './analysis-reads.ts';
import type { Db } from './shared.ts';

/** A sound's analysis as the catalogue stores it (what the pipeline's analysis stage hands over). */
export interface StoredAnalysis {
  /** The filterable descriptors (absent ones null). */
  values: DescriptorValues;
  /** Consolidated flat record (variant B). */
  analysisB: VariantB;
  /** Full Essentia-layout tree (variant A); the similarity spaces read it. */
  analysisA: VariantATree;
  analyzer: string;
}

/** Stores (or replaces) a sound's analysis: typed columns for filtering, both full records as jsonb. */
export async function setAnalysis(db: Db, soundId: number, result: StoredAnalysis): Promise<void> {
  const typed: DescriptorValues = {};
  for (const column of ALL_DESCRIPTOR_COLUMNS) {
    (typed as Record<string, unknown>)[column] = result.values[column] ?? null;
  }
  const row = {
    ...typed,
    analysis_b: asJsonObject(result.analysisB),
    analysis_a: asJsonObject(result.analysisA),
    analyzer: result.analyzer,
    updated: new Date(),
  };
  await db
    .insertInto('sound_descriptors')
    .values({ sound_id: soundId, ...(row as Omit<typeof row, keyof DescriptorValues>) })
    .onConflict((oc) => oc.column('sound_id').doUpdateSet(row as never))
    .execute();
}

/** A jsonb column takes any JSON object; the typed records of core are such objects. */
function asJsonObject(value: object): Record<string, unknown> {
  return value as Record<string, unknown>;
}

export function getAnalysis(db: Db, soundId: number): Promise<SoundDescriptors | undefined> {
  return db.selectFrom('sound_descriptors').selectAll().where('sound_id', '=', soundId).executeTakeFirst();
}

/** The variant-A tree setAnalysis stored (the jsonb column holds what StoredAnalysis.analysisA was). */
export async function getAnalysisTree(db: Db, soundId: number): Promise<VariantATree | undefined> {
  return (await analysisTree(db, soundId)) as VariantATree | undefined;
}

/** Stores (or replaces) a sound's vector in one similarity space. */
export async function setSimilarityVector(
  db: Db,
  soundId: number,
  space: string,
  vector: readonly number[],
): Promise<void> {
  const values = { vector: [...vector], updated: new Date() };
  await db
    .insertInto('sound_similarity_vectors')
    .values({ sound_id: soundId, space, ...values })
    .onConflict((oc) => oc.columns(['sound_id', 'space']).doUpdateSet(values))
    .execute();
}

export async function getSimilarityVector(
  db: Db,
  soundId: number,
  space: string,
): Promise<number[] | undefined> {
  const row = await db
    .selectFrom('sound_similarity_vectors')
    .select('vector')
    .where('sound_id', '=', soundId)
    .where('space', '=', space)
    .executeTakeFirst();
  return row?.vector;
}

/** The similarity spaces that hold at least one vector, with their sizes. */
export async function similaritySpaces(db: Db): Promise<{ space: string; count: number; dims: number }[]> {
  const rows = await db
    .selectFrom('sound_similarity_vectors')
    .select(['space', sql<number>`count(*)`.as('count'), sql<number>`max(dims)`.as('dims')])
    .groupBy('space')
    .orderBy('space')
    .execute();
  return rows.map((r) => ({ space: r.space, count: Number(r.count), dims: Number(r.dims) }));
}

/**
 * Sounds whose stored analysis another version of `analyzer` made (the variant-A tree's
 * `metadata.version.extractor` is not `extractor`), by id: what `earshot reprocess --stale` redoes
 * after the descriptors' definitions change.
 */
export async function listStaleAnalyses(db: Db, analyzer: string, extractor: string): Promise<number[]> {
  const rows = await db
    .selectFrom('sound_descriptors')
    .select('sound_id')
    .where('analyzer', '=', analyzer)
    .where(sql<string>`coalesce(analysis_a #>> '{metadata,version,extractor}', '')`, '<>', extractor)
    .orderBy('sound_id')
    .execute();
  return rows.map((r) => r.sound_id);
}
