/**
 * Variant A's `descriptors` parameter: comma-separated dotted names (`lowlevel.mfcc`,
 * `rhythm.bpm`) picked out of the analysis tree, keeping the tree's nesting. Null when no name
 * matches, as the contract says.
 */
export function pickAnalysis(tree: Record<string, unknown>, names: string): Record<string, unknown> | null {
  const out: Record<string, unknown> = {};
  let found = false;
  for (const name of names.split(',')) {
    const path = name.trim().replace(/^\./, '').split('.').filter(Boolean);
    if (path.length === 0) continue;
    const value = lookup(tree, path);
    if (value === undefined) continue;
    setPath(out, path, value);
    found = true;
  }
  return found ? out : null;
}

function lookup(tree: unknown, path: string[]): unknown {
  let node: unknown = tree;
  for (const key of path) {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    node[key] ??= {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1]] = value;
}
