// Shared by the frame-stride test and its measurement script: how far a clip query's subsampled
// statistics (`frameStride`) stand from the full analysis's, in one similarity space.

import { analyzeSubset, planSubset } from '../descriptors/analyze-subset.ts';
import { effectiveStride, LOWLEVEL_FRAME, LOWLEVEL_HOP } from '../descriptors/lowlevel.ts';
import { frameCount } from '../descriptors/spectrum.ts';
import { readDescriptor } from '../similarity/analysis-tree.ts';
import { exampleAnalysisNeeds } from '../similarity/example-query.ts';
import { getSimilaritySpace, similarityVectorFromAnalysis } from '../similarity/spaces/registry.ts';

export interface StrideComparison {
  /** Relative error of each input statistic of the space (|strided − full| / |full|), one per number. */
  relativeErrors: number[];
  /** The strided and the full analysis's unit vectors in the space. */
  strided: Float32Array;
  full: Float32Array;
  /** The stride the signal got (a short one gets less than asked, see MIN_STRIDED_FRAMES). */
  stride: number;
}

/** A statistic this close to zero is compared in absolute terms (its relative error says nothing). */
const NEAR_ZERO = 1e-6;

/**
 * The strided analysis against the full one. `float32Fft`: the strided one also takes its spectra
 * from the float32 FFT, as a clip query does (`loadFloat32Fft()` must have finished).
 */
export function compareStride(
  samples: Float32Array,
  sampleRate: number,
  space: string,
  stride: number,
  float32Fft = false,
) {
  const plan = planSubset(exampleAnalysisNeeds(space));
  const fullTree = analyzeSubset(samples, sampleRate, plan);
  const stridedTree = analyzeSubset(samples, sampleRate, plan, { frameStride: stride, float32Fft });
  const relativeErrors: number[] = [];
  for (const path of getSimilaritySpace(space).inputs) {
    const a = readDescriptor(fullTree, path);
    const b = readDescriptor(stridedTree, path);
    if (a === undefined || b === undefined) continue;
    const as = typeof a === 'number' ? [a] : a;
    const bs = typeof b === 'number' ? [b] : b;
    as.forEach((x, i) => {
      relativeErrors.push(Math.abs(bs[i] - x) / Math.max(Math.abs(x), NEAR_ZERO));
    });
  }
  return {
    relativeErrors,
    strided: similarityVectorFromAnalysis(space, stridedTree),
    full: similarityVectorFromAnalysis(space, fullTree),
    stride: effectiveStride(frameCount(samples.length, LOWLEVEL_HOP, LOWLEVEL_FRAME), stride),
  } satisfies StrideComparison;
}

export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i] * b[i];
  return dot;
}

export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}
