import {
  ALL_DESCRIPTOR_COLUMNS,
  type DescriptorValues,
  setAnalysis,
  setSimilarityVector,
} from '@earshot/catalogue';
import { insertSeedSound } from '@earshot/catalogue/testing';
import { analyzeFile, listSimilaritySpaces, similarityVectorFromAnalysis } from '@earshot/core';
import { fixture } from '@earshot/fixtures';
import type { TestServer } from './server.ts';

/**
 * Public sounds analyzed by earshot's own analyzer, added to a test server's catalogue: the
 * fixture recordings go through `analyzeFile`, and the analysis is stored as the pipeline's
 * analysis stage stores it (both records, the filterable columns, a vector per similarity space).
 * The seed's sounds carry the native Essentia extractor's trees, whose layout lacks some of what
 * earshot writes (`tonal.key_key`, variant B's `pitch`): tests of those need these.
 */
export interface AnalyzedSound {
  /** A generated fixture's name (`sine-a5`, `cadence-c-major`). */
  fixture: string;
  name: string;
  user?: 'alice' | 'bob';
}

export async function addAnalyzedSounds(
  s: TestServer,
  sounds: readonly AnalyzedSound[],
): Promise<Record<string, number>> {
  const db = s.catalogue.db;
  const ids: Record<string, number> = {};
  for (const sound of sounds) {
    const file = fixture(sound.fixture);
    const id = await insertSeedSound(db, {
      user_id: s.seeded.userIds[sound.user ?? 'bob'],
      pack_id: null,
      name: sound.name,
      description: `The ${sound.fixture} fixture, analyzed by earshot`,
      tags: ['fixture', 'analyzed', sound.fixture],
      license: 'Creative Commons 0',
      original_filename: `${sound.fixture}.wav`,
      original_path: '',
      created: new Date(),
      moderation_state: 'ok',
      processing_state: 'Processed',
    });
    const result = await analyzeFile(file);
    const values: Record<string, unknown> = {};
    for (const column of ALL_DESCRIPTOR_COLUMNS) {
      const v = (result.variantB as unknown as Record<string, unknown>)[column];
      if (v !== undefined && v !== null && (typeof v !== 'number' || Number.isFinite(v))) values[column] = v;
    }
    await setAnalysis(db, id, {
      analysisA: result.variantA,
      analysisB: result.variantB,
      values: values as DescriptorValues,
      analyzer: 'earshot-core',
    });
    for (const space of listSimilaritySpaces()) {
      const vector = similarityVectorFromAnalysis(space.name, result.variantA);
      await setSimilarityVector(db, id, space.name, [...vector]);
    }
    ids[sound.fixture] = id;
  }
  await s.deps.similarity.refresh();
  return ids;
}
