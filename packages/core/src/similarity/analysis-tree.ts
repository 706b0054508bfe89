/** A variant-A analysis: Essentia FreesoundExtractor's nested statistics tree. */
export type AnalysisTree = { [key: string]: unknown };

/**
 * Reads a dotted path (`lowlevel.mfcc.mean`) from an analysis tree: a finite number, an array of
 * finite numbers, or undefined when absent or of another kind.
 */
export function readDescriptor(tree: AnalysisTree, path: string): number | number[] | undefined {
  let node: unknown = tree;
  for (const key of path.split('.')) {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  if (typeof node === 'number') return Number.isFinite(node) ? node : undefined;
  if (Array.isArray(node) && node.every((v) => typeof v === 'number' && Number.isFinite(v))) {
    return node as number[];
  }
  return undefined;
}
