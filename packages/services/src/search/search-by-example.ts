import fs from 'node:fs/promises';
import { type Db, soundRecordsByIds } from '@earshot/catalogue';
import type { Logger } from '@earshot/common';
import {
  type AnalysisTree,
  analyzeClip,
  clipAnalysisNeeds,
  DEFAULT_SIMILARITY_SPACE,
  type Ffmpeg,
  getSimilaritySpace,
  parseAnalysisFile,
} from '@earshot/core';
import { exampleSpaceVector, searchEngine } from './search-engine.ts';
import type { Hit, SearchExample } from './search-requests.ts';
import { SimilarityState } from './similarity-state.ts';

/**
 * Search by example over a catalogue without a running server (the `earshot similar` command): the
 * example is an analysis file (any layout earshot writes) or an audio clip (its first 30 s), ranked
 * by the API's SearchEngine over a similarity state loaded from the data folder's snapshots.
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

export interface ExampleSearchOptions {
  space?: string;
  n?: number;
  /**
   * Folder of the similarity snapshots (similaritySnapshotDir). Spaces without a usable one are
   * rebuilt from the catalogue and their snapshots written, so the next search loads them.
   */
  snapshotDir?: string;
  /** The ffmpeg/ffprobe an audio clip is decoded with where needed (default: core's `defaultFfmpeg()`). */
  ffmpeg?: Ffmpeg;
}

/** Reads the example: `.json` files as analysis files, anything else as audio. */
export async function readExample(
  file: string,
  space?: string,
  ffmpeg?: Ffmpeg,
): Promise<{ tree: AnalysisTree; clip?: ExampleSearchResult['clip'] }> {
  if (file.toLowerCase().endsWith('.json')) return { tree: parseAnalysisFile(await fs.readFile(file)).tree };
  // A clip is analysed only for what the space compares (see clipAnalysisNeeds).
  const { tree, analyzedSeconds, duration, truncated } = await analyzeClip(file, {
    needs: clipAnalysisNeeds(space),
    ffmpeg,
  });
  return { tree, clip: { analyzedSeconds, duration, truncated } };
}

export async function searchByExample(
  db: Db,
  logger: Logger,
  file: string,
  options: ExampleSearchOptions = {},
): Promise<ExampleSearchResult> {
  const n = options.n ?? 15;
  // A named space is checked, and the example read and placed, before the indexes load: a wrong
  // space or file fails at once.
  const space = options.space === undefined ? undefined : getSimilaritySpace(options.space).name;
  const { tree, clip } = await readExample(file, space, options.ffmpeg);
  const example: SearchExample = { tree, space };
  const comparedBy = exampleSpaceVector(example)?.space ?? 'descriptors';
  const state = await loadState(db, logger, options.snapshotDir);
  try {
    // No analyzed sound: nothing to compare with (the descriptor target would find no descriptor).
    const hits: Hit[] =
      comparedBy === 'descriptors' && state.table.size === 0
        ? []
        : (await searchEngine(db, state).content({ example, limit: n, offset: 0 })).items;
    const records = new Map(
      (
        await soundRecordsByIds(
          db,
          hits.map((h) => h.id),
          DEFAULT_SIMILARITY_SPACE,
        )
      ).map((r) => [r.id, r]),
    );
    const matches = hits.flatMap((h) => {
      const record = records.get(h.id);
      return record ? [{ id: h.id, name: record.name, username: record.username, score: h.score ?? 0 }] : [];
    });
    return { comparedBy, clip, matches };
  } finally {
    await state.close();
  }
}

async function loadState(db: Db, logger: Logger, snapshotDir: string | undefined): Promise<SimilarityState> {
  const state = new SimilarityState(db, logger, { snapshotDir });
  try {
    await state.refresh();
    if (snapshotDir && state.rebuilt.length > 0) {
      // A search that had to build an index leaves its snapshot behind; it still answers if that fails.
      await state
        .writeSnapshots()
        .catch((err) => logger.warn({ err }, 'similarity snapshots not written after the rebuild'));
    }
    return state;
  } catch (err) {
    await state.close();
    throw err;
  }
}
