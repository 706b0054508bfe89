import { VARIABLE_LENGTH_DESCRIPTORS } from '@earshot/core';
import type { DescriptorReader } from '../ports.ts';

type Range = { min: number; max: number };

/**
 * Variant A's `normalized=1` (docs/descriptors.md, "Normalized values"): every numeric leaf of an
 * analysis tree scaled into [0, 1] over the catalogue's current range of that leaf, one range per
 * element of a fixed-length vector: (value − min) / (max − min). A leaf whose range is a single
 * value (or that has no range) is 0. Strings, booleans and variable-length lists (beat and onset
 * times, whose elements are not comparable from sound to sound) are served as they are.
 */
export async function normalizeAnalyses(
  reader: DescriptorReader,
  trees: ReadonlyArray<Record<string, unknown>>,
): Promise<Array<Record<string, unknown>>> {
  const names = new Set<string>();
  for (const tree of trees) collectLeafNames(tree, '', names);
  const ranges = await reader.ranges([...names]);
  return trees.map((tree) => normalizeNode(tree, '', ranges) as Record<string, unknown>);
}

/** A leaf's name as the catalogue's ranges (and content filters) write it. */
function childPath(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function collectLeafNames(node: unknown, path: string, out: Set<string>): void {
  if (typeof node === 'number') out.add(path);
  else if (Array.isArray(node)) {
    if (VARIABLE_LENGTH_DESCRIPTORS.has(path)) return;
    node.forEach((v, i) => {
      if (typeof v === 'number') out.add(`${path}[${i}]`);
    });
  } else if (node !== null && typeof node === 'object') {
    for (const [key, child] of Object.entries(node)) collectLeafNames(child, childPath(path, key), out);
  }
}

function normalizeNode(node: unknown, path: string, ranges: ReadonlyMap<string, Range>): unknown {
  if (typeof node === 'number') return scale(node, ranges.get(path));
  if (Array.isArray(node)) {
    if (VARIABLE_LENGTH_DESCRIPTORS.has(path)) return node;
    return node.map((v, i) => (typeof v === 'number' ? scale(v, ranges.get(`${path}[${i}]`)) : v));
  }
  if (node !== null && typeof node === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(node))
      out[key] = normalizeNode(child, childPath(path, key), ranges);
    return out;
  }
  return node;
}

function scale(value: number, range: Range | undefined): number {
  if (!range || !(range.max > range.min)) return 0;
  // Clamped: a value read a moment before its range moved still lands in [0, 1].
  return Math.min(1, Math.max(0, (value - range.min) / (range.max - range.min)));
}
