import { InvalidSoundIdError, InvalidVectorError, VectorDimensionError } from './errors.ts';

export type VectorInput = ArrayLike<number>;

/**
 * Checks length and finiteness, then returns a unit-length Float32Array copy. Zero vectors are
 * refused: cosine similarity is undefined for them and hnswlib would rank them arbitrarily.
 */
export function normalizeVector(space: string, dimension: number, vector: VectorInput): Float32Array {
  if (vector == null || typeof vector.length !== 'number') {
    throw new InvalidVectorError(`Vector for ${space} must be an array of ${dimension} numbers`);
  }
  if (vector.length !== dimension) throw new VectorDimensionError(space, dimension, vector.length);
  const out = new Float32Array(dimension);
  let sumSquares = 0;
  for (let i = 0; i < dimension; i++) {
    const value = vector[i];
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw new InvalidVectorError(
        `Vector for ${space} has a non-finite value at dimension ${i}: ${String(value)}`,
        { dimension: i },
      );
    }
    out[i] = value;
    sumSquares += value * value;
  }
  if (sumSquares === 0) throw new InvalidVectorError(`Vector for ${space} is all zeros and has no direction`);
  const scale = 1 / Math.sqrt(sumSquares);
  for (let i = 0; i < dimension; i++) out[i] *= scale;
  return out;
}

export function assertSoundId(id: unknown): asserts id is number {
  if (typeof id !== 'number' || !Number.isInteger(id) || id < 1 || id > 0xffffffff) {
    throw new InvalidSoundIdError(id);
  }
}

/** Dot product of two equal-length vectors; `b` may be a row inside a larger flat matrix. */
export function dot(a: Float32Array, b: Float32Array, bOffset = 0): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[bOffset + i];
  return sum;
}

/**
 * Score of a neighbour for unit vectors: (1 + cosine) / 2, in [0, 1]. 1 is the same direction,
 * 0.5 orthogonal, 0 opposite. It is the score Lucene/Solr (and so Freesound) report for dot-product
 * kNN, so upstream's 0.7 threshold keeps its meaning.
 */
export function scoreFromCosine(cosine: number): number {
  const score = (1 + cosine) / 2;
  return Math.min(1, Math.max(0, score));
}
