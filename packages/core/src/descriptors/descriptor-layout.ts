import type { TreeValue, VariantATree } from './types.ts';

/** Variant-A leaves whose length depends on the sound (they only work in the `descriptors` parameter). */
const VARIABLE_LENGTH = new Set([
  'rhythm.beats_position',
  'rhythm.bpm_intervals',
  'rhythm.onset_times',
  'tonal.chords_progression',
]);

export interface DescriptorLayout {
  'fixed-length': { 'one-dimensional': string[]; 'multi-dimensional': string[] };
  'variable-length': string[];
}

function isObject(v: TreeValue): v is VariantATree {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Every leaf of a tree as [dotted name, value]. */
export function treeLeaves(tree: VariantATree, prefix = ''): [string, TreeValue][] {
  const out: [string, TreeValue][] = [];
  for (const [key, value] of Object.entries(tree)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (isObject(value)) out.push(...treeLeaves(value, name));
    else out.push([name, value]);
  }
  return out;
}

/**
 * The available-descriptors split of the descriptors resource: fixed-length one-dimensional (numbers and
 * strings), fixed-length multi-dimensional (vectors of a fixed size), variable-length (per-sound lists).
 * Metadata is not a descriptor.
 */
export function descriptorLayout(tree: VariantATree): DescriptorLayout {
  const layout: DescriptorLayout = {
    'fixed-length': { 'one-dimensional': [], 'multi-dimensional': [] },
    'variable-length': [],
  };
  for (const [name, value] of treeLeaves(tree)) {
    if (name.startsWith('metadata.')) continue;
    if (VARIABLE_LENGTH.has(name)) layout['variable-length'].push(name);
    else if (Array.isArray(value)) layout['fixed-length']['multi-dimensional'].push(name);
    else layout['fixed-length']['one-dimensional'].push(name);
  }
  return layout;
}

/** Per-leaf [min, max] over a collection (what `normalized=1` scales by), numbers and vectors element-wise. */
export type NormalizationRanges = Map<string, [number[], number[]]>;

export function normalizationRanges(trees: Iterable<VariantATree>): NormalizationRanges {
  const ranges: NormalizationRanges = new Map();
  for (const tree of trees) {
    for (const [name, value] of treeLeaves(tree)) {
      if (VARIABLE_LENGTH.has(name) || name.startsWith('metadata.')) continue;
      const values =
        typeof value === 'number'
          ? [value]
          : Array.isArray(value) && typeof value[0] === 'number'
            ? (value as number[])
            : null;
      if (!values) continue;
      const range = ranges.get(name);
      if (!range) {
        ranges.set(name, [[...values], [...values]]);
        continue;
      }
      values.forEach((v, i) => {
        range[0][i] = Math.min(range[0][i] ?? v, v);
        range[1][i] = Math.max(range[1][i] ?? v, v);
      });
    }
  }
  return ranges;
}

/**
 * Normalized copy of a tree (Gaia's "normalize" step that Freesound's `normalized=1` exposed): each
 * numeric leaf mapped to (x − min)/(max − min) over the collection's ranges, clipped to [0, 1]; leaves
 * without a range or with a constant range are 0; strings and variable-length lists are unchanged.
 */
export function normalizeTree(tree: VariantATree, ranges: NormalizationRanges, prefix = ''): VariantATree {
  const out: VariantATree = {};
  const scale = (v: number, lo: number | undefined, hi: number | undefined) =>
    lo === undefined || hi === undefined || hi <= lo ? 0 : Math.min(1, Math.max(0, (v - lo) / (hi - lo)));
  for (const [key, value] of Object.entries(tree)) {
    const name = prefix ? `${prefix}.${key}` : key;
    const range = ranges.get(name);
    if (isObject(value)) out[key] = normalizeTree(value, ranges, name);
    else if (typeof value === 'number') out[key] = scale(value, range?.[0][0], range?.[1][0]);
    else if (Array.isArray(value) && typeof value[0] === 'number' && !VARIABLE_LENGTH.has(name))
      out[key] = (value as number[]).map((v, i) => scale(v, range?.[0][i], range?.[1][i]));
    else out[key] = value;
  }
  return out;
}
