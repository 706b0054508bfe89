import type { AnalysisTree } from '../analysis-tree.ts';

/**
 * A similarity space: a named vector kind with a fixed dimension. `fromAnalysis` turns a sound's
 * variant-A analysis into a raw vector; every vector is L2-normalized before it is indexed or
 * queried (see `normalizeVector`), so spaces compare directions, scored by cosine.
 */
export interface SimilaritySpace {
  readonly name: string;
  readonly dimension: number;
  readonly description: string;
  /**
   * The variant-A descriptor paths `fromAnalysis` reads (`lowlevel.mfcc.mean`, …), so a clip
   * analysed only to be compared in this space computes nothing else (analyzeClip's `needs`).
   */
  readonly inputs: readonly string[];
  /** Raw (not yet L2-normalized) vector; throws IncompleteAnalysisError when inputs are missing. */
  fromAnalysis(analysis: AnalysisTree): Float32Array;
}
