import type { AnalysisTree } from '../analysis-tree.ts';
import { UnknownSimilaritySpaceError } from '../errors.ts';
import { normalizeVector, type VectorInput } from '../vector.ts';
import { FREESOUND_CLASSIC, freesoundClassic } from './freesound-classic.ts';
import type { SimilaritySpace } from './space.ts';

/** Every space the engine knows. Adding a space is adding its definition to this list. */
const SPACES: readonly SimilaritySpace[] = [freesoundClassic];

const byName = new Map(SPACES.map((space) => [space.name, space]));

export const DEFAULT_SIMILARITY_SPACE = FREESOUND_CLASSIC;

export function listSimilaritySpaces(): readonly SimilaritySpace[] {
  return SPACES;
}

/** The named space (the default one when `name` is undefined or empty); a typed 400 otherwise. */
export function getSimilaritySpace(name?: string | null): SimilaritySpace {
  const space = byName.get(name || DEFAULT_SIMILARITY_SPACE);
  if (!space) throw new UnknownSimilaritySpaceError(String(name), [...byName.keys()]);
  return space;
}

/** Checks and L2-normalizes a vector given for a space (e.g. a `similar_to` vector). */
export function normalizeSpaceVector(spaceName: string, vector: VectorInput): Float32Array {
  const space = getSimilaritySpace(spaceName);
  return normalizeVector(space.name, space.dimension, vector);
}

/** The unit-length vector of a sound in a space, computed from its variant-A analysis. */
export function similarityVectorFromAnalysis(spaceName: string, analysis: AnalysisTree): Float32Array {
  const space = getSimilaritySpace(spaceName);
  return normalizeVector(space.name, space.dimension, space.fromAnalysis(analysis));
}
