/**
 * The version 1 analysis rules: by default only the recommended descriptors (the original
 * service's list), `all` for the whole tree; a slash-separated path picks a branch or a value.
 */
export const RECOMMENDED_DESCRIPTORS = [
  'tonal.key_key',
  'tonal.key_scale',
  'tonal.key_strength',
  // The same three as Essentia's own trees nest them (reference analyses, imported ones).
  'tonal.key.key',
  'tonal.key.scale',
  'tonal.key.strength',
  'tonal.tuning_frequency',
  'rhythm.bpm',
  'lowlevel.average_loudness',
  'lowlevel.dissonance.mean',
  'lowlevel.pitch.mean',
  'lowlevel.pitch_salience.mean',
  'lowlevel.spectral_centroid.mean',
  'lowlevel.mfcc.mean',
] as const;

type Tree = Record<string, unknown>;

const isBranch = (v: unknown): v is Tree => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The recommended descriptors the tree has, in the tree's own nesting. */
export function recommendedSubset(tree: Tree): Tree {
  const out: Tree = {};
  for (const name of RECOMMENDED_DESCRIPTORS) {
    const parts = name.split('.');
    let from: unknown = tree;
    for (const part of parts) from = isBranch(from) ? from[part] : undefined;
    if (from === undefined) continue;
    let to = out;
    for (const part of parts.slice(0, -1)) {
      if (!isBranch(to[part])) to[part] = {};
      to = to[part] as Tree;
    }
    to[parts[parts.length - 1]] = from;
  }
  return out;
}

/** The value at `path` (`lowlevel/pitch/mean`) of the subset asked for; undefined when it names nothing. */
export function pickV1Analysis(tree: Tree, path: string, all: boolean): unknown {
  let node: unknown = all ? tree : recommendedSubset(tree);
  for (const part of path.split('/').filter((p) => p !== '')) {
    if (!isBranch(node) || !Object.hasOwn(node, part)) return undefined;
    node = node[part];
  }
  return node;
}
