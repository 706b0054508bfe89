import fs from 'node:fs/promises';
import { type Db, publicAnalysisBatch, publicVectorBatch, soundRecordsByIds } from '@earshot/catalogue';
import {
  type AnalysisTree,
  analyzeClip,
  clipAnalysisNeeds,
  DEFAULT_SIMILARITY_SPACE,
  DescriptorTable,
  exampleTarget,
  exampleVector,
  getSimilaritySpace,
  InvalidAnalysisFileError,
  parseAnalysisFile,
  SimilarityIndex,
  searchDescriptorTarget,
} from '@earshot/core';

/**
 * Search by example over a catalogue without a running server (the `earshot similar` command): the
 * example is an analysis file (any layout earshot writes) or an audio clip (its first 30 s), ranked
 * as the API ranks one: in the named or default similarity space when the example holds what the
 * space needs, else by the descriptors a sound-id content target compares.
 */

export interface ExampleMatch {
  id: number;
  name: string;
  username: string;
  /** Similarity in [0, 1], 1 the closest (the API's `score`). */
  score: number;
}

export interface ExampleSearchResult {
  /** What the example was compared by: a space's name, or `descriptors`. */
  comparedBy: string;
  /** Set for an audio clip: seconds analyzed, and whether it was cut. */
  clip?: { analyzedSeconds: number; duration: number; truncated: boolean };
  matches: ExampleMatch[];
}

const BATCH = 5_000;

/** Reads the example: `.json` files as analysis files, anything else as audio. */
export async function readExample(
  file: string,
  space?: string,
): Promise<{ tree: AnalysisTree; clip?: ExampleSearchResult['clip'] }> {
  if (file.toLowerCase().endsWith('.json')) return { tree: parseAnalysisFile(await fs.readFile(file)).tree };
  // A clip is analysed only for what the space compares (see clipAnalysisNeeds).
  const { tree, analyzedSeconds, duration, truncated } = await analyzeClip(file, {
    needs: clipAnalysisNeeds(space),
  });
  return { tree, clip: { analyzedSeconds, duration, truncated } };
}

export async function searchByExample(
  db: Db,
  file: string,
  options: { space?: string; n?: number } = {},
): Promise<ExampleSearchResult> {
  const n = options.n ?? 15;
  const { tree, clip } = await readExample(file, options.space);
  let ranked: Array<{ id: number; score: number }>;
  let comparedBy: string;
  const vector = spaceVector(tree, options.space);
  if (vector) {
    comparedBy = vector.space;
    ranked = await nearestInSpace(db, vector.space, vector.vector, n);
  } else {
    comparedBy = 'descriptors';
    ranked = await nearestByDescriptors(db, tree, n);
  }
  const records = new Map(
    (
      await soundRecordsByIds(
        db,
        ranked.map((r) => r.id),
        DEFAULT_SIMILARITY_SPACE,
      )
    ).map((r) => [r.id, r]),
  );
  const matches = ranked.flatMap((r) => {
    const record = records.get(r.id);
    return record ? [{ id: r.id, name: record.name, username: record.username, score: r.score }] : [];
  });
  return { comparedBy, clip, matches };
}

function spaceVector(tree: AnalysisTree, named: string | undefined) {
  const space = getSimilaritySpace(named).name;
  try {
    return { space, vector: exampleVector(space, tree) };
  } catch (error) {
    if (named === undefined && error instanceof InvalidAnalysisFileError) return undefined;
    throw error;
  }
}

async function nearestInSpace(db: Db, space: string, vector: Float32Array, n: number) {
  const rows: Array<{ id: number; vector: number[] }> = [];
  for (let after = 0; ; ) {
    const batch = await publicVectorBatch(db, space, { afterId: after, limit: BATCH });
    rows.push(...batch);
    if (batch.length < BATCH) break;
    after = batch[batch.length - 1].id;
  }
  const index = SimilarityIndex.create({ space, capacity: Math.max(16, rows.length) });
  for (const row of rows) index.upsert(row.id, row.vector.map(Number));
  return index
    .nearestToVector(vector, { k: Math.min(n, rows.length) })
    .map((r) => ({ id: r.id, score: r.score }));
}

async function nearestByDescriptors(db: Db, tree: AnalysisTree, n: number) {
  const table = new DescriptorTable();
  for (let after = 0; ; ) {
    const batch = await publicAnalysisBatch(db, { afterId: after, limit: BATCH });
    for (const row of batch) table.upsertAnalysis(row.id, row.analysis_a);
    if (batch.length < BATCH) break;
    after = batch[batch.length - 1].id;
  }
  if (table.size === 0) return [];
  const target = exampleTarget(tree, (name) => {
    try {
      return table.resolve(name).length > 0;
    } catch {
      return false;
    }
  });
  return searchDescriptorTarget(table, target, { k: n }).results.map((r) => ({
    id: r.id,
    score: 1 / (1 + r.distance),
  }));
}
