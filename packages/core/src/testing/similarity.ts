// Shared by the similarity tests: the 40 reference analyses and deterministic jitter.

import type { AnalysisTree } from '../similarity/analysis-tree.ts';
import reference from './freesound-classic.reference.json' with { type: 'json' };

export const referenceAnalyses = reference as Record<string, AnalysisTree>;
export const referenceNames = Object.keys(referenceAnalyses);

export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A copy of an analysis with every number moved by up to ±`amount` (relative): a near-duplicate sound. */
export function jitterAnalysis(tree: AnalysisTree, amount: number, seed: number): AnalysisTree {
  const random = seededRandom(seed);
  const move = (node: unknown): unknown => {
    if (typeof node === 'number') return node * (1 + amount * (2 * random() - 1));
    if (Array.isArray(node)) return node.map(move);
    if (node && typeof node === 'object') {
      return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, move(value)]));
    }
    return node;
  };
  return move(tree) as AnalysisTree;
}
