import type { AnalyzeClipOptions, ClipAnalysis } from '../descriptors/analyze-clip.ts';
import { analyzeClip } from '../descriptors/analyze-clip.ts';
import {
  type AnalysisExample,
  InvalidAnalysisFileError,
  readAnalysisExample,
} from '../descriptors/example-file.ts';
import { type AnalysisTree, readDescriptor } from './analysis-tree.ts';
import { DEFAULT_SOUND_TARGET_DESCRIPTORS, type DescriptorTarget } from './descriptor-target.ts';
import { IncompleteAnalysisError } from './errors.ts';
import type { NearestOptions, Neighbour, SimilarityIndex } from './similarity-index.ts';
import {
  DEFAULT_SIMILARITY_SPACE,
  getSimilaritySpace,
  similarityVectorFromAnalysis,
} from './spaces/registry.ts';

/**
 * Search by example: the query comes from an analysis of a sound that is not in the catalogue (a
 * descriptor file, or a clip analyzed on the spot) instead of a sound id or typed values. Both
 * ways end in what the id-based searches already use: a descriptor target for content search, or
 * a vector in a similarity space.
 */

/**
 * The content-search target of an example: the same descriptors a sound-id target compares, with
 * the example's values. `usable` says which names the searched table holds (others are skipped, as
 * for a sound-id target); a 400 when the example has none of them.
 */
export function exampleTarget(
  tree: AnalysisTree,
  usable: (descriptor: string) => boolean = () => true,
  descriptors: readonly string[] = DEFAULT_SOUND_TARGET_DESCRIPTORS,
): DescriptorTarget {
  const terms: Array<{ descriptor: string; values: number[] }> = [];
  for (const descriptor of descriptors) {
    const value = readDescriptor(tree, descriptor);
    if (value === undefined || !usable(descriptor)) continue;
    terms.push({ descriptor, values: typeof value === 'number' ? [value] : value });
  }
  if (terms.length === 0) {
    throw new InvalidAnalysisFileError(
      `The analysis has none of the descriptors content search compares: ${descriptors.join(', ')}.`,
    );
  }
  return { kind: 'values', terms };
}

/** The example's unit vector in a similarity space; a 400 naming what the space needs and the example lacks. */
export function exampleVector(space: string, tree: AnalysisTree): Float32Array {
  try {
    return similarityVectorFromAnalysis(space, tree);
  } catch (error) {
    if (error instanceof IncompleteAnalysisError) {
      const shown = error.missing.slice(0, 5).join(', ');
      const more = error.missing.length > 5 ? `, … (${error.missing.length} in all)` : '';
      throw new InvalidAnalysisFileError(
        `The analysis lacks descriptors similarity space ${space} needs: ${shown}${more}.`,
      );
    }
    throw error;
  }
}

/**
 * The descriptors an analysed clip must hold to be compared as an example: the inputs of the
 * named space, or, when none is named, those of the default space plus the descriptors content
 * search compares (the fallback when the space does not apply). A clip analysis given these as
 * `needs` computes nothing else. An unknown space is a 400 here, before any audio is analysed.
 */
export function exampleAnalysisNeeds(space?: string): string[] {
  if (space !== undefined && space !== '') return [...getSimilaritySpace(space).inputs];
  const needs = new Set([
    ...getSimilaritySpace(DEFAULT_SIMILARITY_SPACE).inputs,
    ...DEFAULT_SOUND_TARGET_DESCRIPTORS,
  ]);
  return [...needs];
}

/**
 * The descriptors an audio clip is analysed for: the inputs of the named space, or of the default
 * space when none is named, and nothing for the descriptor fallback. A clip's lean analysis gives
 * every input of that space a number, so its vector is always made and the fallback (which exists
 * for descriptor files that lack the space's inputs) never applies to a clip; its extra
 * descriptors (the amplitude envelope, about 10 ms of CPU per 10 s clip) would be computed for
 * nothing. An unknown space is a 400 here, before any audio is decoded.
 */
export function clipAnalysisNeeds(space?: string): string[] {
  return [
    ...getSimilaritySpace(space !== undefined && space !== '' ? space : DEFAULT_SIMILARITY_SPACE).inputs,
  ];
}

/** An example given as a parsed descriptor file (any layout earshot writes) or as its tree. */
export type AnalysisInput = AnalysisExample | AnalysisTree;

function treeOf(analysis: AnalysisInput): AnalysisTree {
  if ('layout' in analysis && 'tree' in analysis && typeof analysis.layout === 'string') {
    return (analysis as AnalysisExample).tree;
  }
  return readAnalysisExample(analysis).tree;
}

/**
 * The sounds of an index closest to an analysis (a variant-A tree, variant-B descriptors or a frames
 * file, parsed), best first. For people who import the library: `similarToAnalysis(index, JSON.parse(text))`.
 */
export function similarToAnalysis(
  index: SimilarityIndex,
  analysis: AnalysisInput,
  options: NearestOptions = {},
): Neighbour[] {
  return index.nearestToVector(exampleVector(index.space.name, treeOf(analysis)), options);
}

/**
 * The sounds of an index closest to an audio clip: its first 30 s (`maxSeconds`) are analyzed in
 * this thread, then compared as `similarToAnalysis` does. Servers use `ClipAnalysisPool` instead.
 */
export async function similarToAudio(
  index: SimilarityIndex,
  file: string,
  options: NearestOptions & AnalyzeClipOptions = {},
): Promise<{ neighbours: Neighbour[]; clip: Omit<ClipAnalysis, 'tree'> }> {
  const { tree, ...clip } = await analyzeClip(file, {
    needs: exampleAnalysisNeeds(index.space.name),
    ...options,
  });
  return { neighbours: similarToAnalysis(index, tree, options), clip };
}
