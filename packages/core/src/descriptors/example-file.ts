import { ValidationError } from '@earshot/common/errors';
import type { AnalysisTree } from '../similarity/analysis-tree.ts';
import { canonicalDescriptorName } from '../similarity/descriptor-names.ts';
import { decodeFrameValues } from './frames-file.ts';
import { scalarStats, vectorStats } from './statistics.ts';

/**
 * Reading a descriptor file someone sends as the example of a search ("search by example"): any of
 * the three files earshot itself writes for a sound (analyze-file.ts) — the variant-A statistics
 * tree, the variant-B descriptors, or the frames file, whose statistics are computed here — turned
 * into one variant-A shaped tree that the similarity code reads by dotted names.
 */

export type ExampleLayout = 'variant-a' | 'variant-b' | 'frames';

export interface AnalysisExample {
  layout: ExampleLayout;
  /** Variant-A shaped: `lowlevel.mfcc.mean` and friends at their dotted paths. */
  tree: AnalysisTree;
}

/** A file that is not one earshot writes, or holds values no analysis can have. 400. */
export class InvalidAnalysisFileError extends ValidationError {}

/** Nesting deeper than any earshot file: a hostile document must not make the walk recurse forever. */
const MAX_DEPTH = 12;

/** Parses and checks a descriptor file's text (JSON, as earshot writes them). */
export function parseAnalysisFile(text: string | Buffer): AnalysisExample {
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof text === 'string' ? text : text.toString('utf8'));
  } catch (err) {
    throw new InvalidAnalysisFileError(`analysis_file is not valid JSON: ${(err as Error).message}`);
  }
  return readAnalysisExample(parsed);
}

/** Recognizes the layout of an already parsed descriptor file and checks its values. */
export function readAnalysisExample(value: unknown): AnalysisExample {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidAnalysisFileError('analysis_file must hold a JSON object.');
  }
  const doc = value as Record<string, unknown>;
  if (doc.format === 'earshot-frames') return { layout: 'frames', tree: treeFromFrames(doc) };
  if (isObject(doc.lowlevel)) {
    checkFinite(doc, '', 0);
    return { layout: 'variant-a', tree: doc };
  }
  if (looksLikeVariantB(doc)) {
    checkFinite(doc, '', 0);
    return { layout: 'variant-b', tree: treeFromVariantB(doc) };
  }
  throw new InvalidAnalysisFileError(
    'analysis_file is not an earshot descriptor file: expected the variant-A statistics (an object with "lowlevel"), ' +
      'the variant-B descriptors ("mfcc", "spectral_centroid", …) or the frames file ("format": "earshot-frames").',
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Names every variant-B file carries (they are what content search compares). */
const VARIANT_B_MARKERS = ['mfcc', 'spectral_centroid', 'zero_crossing_rate'];

function looksLikeVariantB(doc: Record<string, unknown>): boolean {
  return VARIANT_B_MARKERS.some((name) => name in doc);
}

/**
 * JSON has no NaN, but `1e999` parses to Infinity, and a value may be null or a string where a
 * number belongs: every number must be finite, so the distance to it means something.
 */
function checkFinite(node: unknown, path: string, depth: number): void {
  if (depth > MAX_DEPTH)
    throw new InvalidAnalysisFileError(`analysis_file is nested too deeply at "${path}".`);
  if (typeof node === 'number') {
    if (!Number.isFinite(node)) {
      throw new InvalidAnalysisFileError(`analysis_file has a non-finite value at "${path}": ${node}.`);
    }
    return;
  }
  if (Array.isArray(node)) {
    node.forEach((item, i) => {
      checkFinite(item, `${path}[${i}]`, depth + 1);
    });
    return;
  }
  if (isObject(node)) {
    for (const [key, child] of Object.entries(node))
      checkFinite(child, path ? `${path}.${key}` : key, depth + 1);
  }
}

function setPath(tree: AnalysisTree, dotted: string, value: unknown): void {
  const parts = dotted.split('.');
  let node = tree as Record<string, unknown>;
  for (const part of parts.slice(0, -1)) {
    if (!isObject(node[part])) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts[parts.length - 1]] = value;
}

/**
 * Variant-B names that are a variant-A statistic go to its place (`mfcc` → `lowlevel.mfcc.mean`);
 * the rest (`pitch` too: analyses stored before issue 37 hold a voiced-frames pitch there, not
 * `lowlevel.pitch.mean`) stay flat under their own names.
 */
function treeFromVariantB(doc: Record<string, unknown>): AnalysisTree {
  const tree: AnalysisTree = {};
  for (const [name, value] of Object.entries(doc)) setPath(tree, canonicalDescriptorName(name), value);
  return tree;
}

/**
 * Frame series that variant A files under another branch than their group's (analyze.ts builds
 * them from the low-level frames but variant-a.ts lists them under `sfx`).
 */
const SFX_SERIES = new Set(['inharmonicity', 'oddtoevenharmonicenergyratio', 'tristimulus']);

/** The statistics of every series in the frames file, as variant A computes them. */
function treeFromFrames(doc: Record<string, unknown>): AnalysisTree {
  if (doc.version !== 1 || doc.encoding !== 'float32le-base64' || !isObject(doc.groups)) {
    throw new InvalidAnalysisFileError(
      'analysis_file looks like a frames file but is not version 1 with float32le-base64 encoding and "groups".',
    );
  }
  const tree: AnalysisTree = {};
  for (const [group, body] of Object.entries(doc.groups)) {
    if (!isObject(body) || !isObject(body.descriptors) || !Number.isInteger(body.frames)) {
      throw new InvalidAnalysisFileError(
        `analysis_file frames group "${group}" lacks "frames" or "descriptors".`,
      );
    }
    const frames = body.frames as number;
    for (const [name, entry] of Object.entries(body.descriptors)) {
      const where = `groups.${group}.descriptors.${name}`;
      if (
        !isObject(entry) ||
        !Number.isInteger(entry.dims) ||
        (entry.dims as number) < 1 ||
        typeof entry.data !== 'string'
      ) {
        throw new InvalidAnalysisFileError(`analysis_file has a malformed frame series at "${where}".`);
      }
      const dims = entry.dims as number;
      // base64 of little-endian float32: a length that is not whole floats is a damaged file.
      if (Buffer.byteLength(entry.data, 'base64') % 4 !== 0) {
        throw new InvalidAnalysisFileError(
          `analysis_file frame series "${where}" is not whole float32 values.`,
        );
      }
      const values = decodeFrameValues(entry.data);
      if (values.length !== frames * dims) {
        throw new InvalidAnalysisFileError(
          `analysis_file frame series "${where}" holds ${values.length} values; ${frames} frames of ${dims} need ${frames * dims}.`,
        );
      }
      const bad = values.findIndex((v) => !Number.isFinite(v));
      if (bad >= 0) {
        throw new InvalidAnalysisFileError(
          `analysis_file has a non-finite value in "${where}" at frame ${Math.floor(bad / dims)}.`,
        );
      }
      const branch = group === 'lowlevel' && SFX_SERIES.has(name) ? 'sfx' : group;
      setPath(tree, `${branch}.${name}`, dims === 1 ? scalarStats(values) : vectorStats(values, dims));
    }
  }
  if (!isObject(tree.lowlevel)) {
    throw new InvalidAnalysisFileError('analysis_file frames file has no "lowlevel" group.');
  }
  return tree;
}
