import {
  descriptorLayout,
  type NormalizationRanges,
  normalizeTree,
  treeLeaves,
  type VariantATree,
} from '@earshot/core';
import type { DescriptorReader } from './ports.ts';

/**
 * Variant A's `normalized=1` (docs/descriptors.md, "Normalized values"): core's `normalizeTree`
 * (each numeric leaf to (x − min)/(max − min), clipped to [0, 1], a vector element by element;
 * constant or missing range → 0; strings and variable-length lists unchanged) over the ranges the
 * catalogue keeps for the visible sounds, read once for all the trees of an answer.
 */
export async function normalizeAnalyses(
  reader: DescriptorReader,
  trees: ReadonlyArray<Record<string, unknown>>,
): Promise<Array<Record<string, unknown>>> {
  // Leaf name → vector length (undefined for a number), as the catalogue names its ranges.
  const leaves = new Map<string, number | undefined>();
  for (const tree of trees) {
    const variable = new Set(descriptorLayout(tree as VariantATree)['variable-length']);
    for (const [name, value] of treeLeaves(tree as VariantATree)) {
      if (name.startsWith('metadata.') || variable.has(name)) continue;
      if (typeof value === 'number') leaves.set(name, undefined);
      else if (Array.isArray(value) && typeof value[0] === 'number')
        leaves.set(name, Math.max(leaves.get(name) ?? 0, value.length));
    }
  }
  const names = [...leaves].flatMap(([name, length]) =>
    length === undefined ? [name] : Array.from({ length }, (_, i) => `${name}[${i}]`),
  );
  const stored = await reader.ranges(names);
  const ranges: NormalizationRanges = new Map();
  for (const [name, length] of leaves) {
    const keys = length === undefined ? [name] : Array.from({ length }, (_, i) => `${name}[${i}]`);
    const found = keys.map((key) => stored.get(key));
    // A missing element stays undefined: normalizeTree gives it 0.
    ranges.set(name, [found.map((r) => r?.min) as number[], found.map((r) => r?.max) as number[]]);
  }
  return trees.map((tree) => normalizeTree(tree as VariantATree, ranges));
}
