import { listSimilaritySpaces } from '@earshot/core';
import type { SoundReads, Variant } from '../../application/records.ts';
import { DESCRIPTOR_FIELD_NAMES, DESCRIPTOR_NAME_SET } from './descriptor-names.ts';

/** Every metadata field of a variant-B sound, in the order the original service writes them. */
export const B_FIELDS = [
  'id',
  'url',
  'name',
  'tags',
  'description',
  'category',
  'subcategory',
  'category_code',
  'category_is_user_provided',
  'geotag',
  'is_geotagged',
  'created',
  'license',
  'gen_ai_preference',
  'type',
  'channels',
  'filesize',
  'bitrate',
  'bitdepth',
  'duration',
  'samplerate',
  'username',
  'pack',
  'pack_name',
  'download',
  'bookmark',
  'previews',
  'images',
  'num_downloads',
  'avg_rating',
  'num_ratings',
  'rate',
  'comments',
  'num_comments',
  'comment',
  'similar_sounds',
  'analysis_files',
  'is_explicit',
  'score',
  'distance_to_target',
  'is_remix',
  'was_remixed',
  'md5',
  'attribution',
] as const;

/** Fields only variant B has; variant A has its analysis links in their place. */
const B_ONLY_FIELDS: ReadonlySet<string> = new Set([
  'subcategory',
  'gen_ai_preference',
  'is_geotagged',
  'analysis_files',
  'is_explicit',
  'is_remix',
  'was_remixed',
  'md5',
]);
const A_ANALYSIS_FIELDS = ['analysis', 'analysis_stats', 'analysis_frames', 'ac_analysis'] as const;

/** Variant A: the variant-B fields less the B-only ones, with the analysis links just before `score`. */
export const A_FIELDS: readonly string[] = B_FIELDS.filter((f) => !B_ONLY_FIELDS.has(f)).flatMap((f) =>
  f === 'score' ? [...A_ANALYSIS_FIELDS, f] : [f],
);

export const LIST_DEFAULT_FIELDS = ['id', 'name', 'tags', 'username', 'license'];

/** earshot's own fields (docs/api.md "Beyond the contract"): shown only when `fields` names them, never by default or `*`. */
const EXTENSION_FIELDS: ReadonlySet<string> = new Set(['attribution']);

/** Fields left out of a sound instance without `fields`: not in the contract's table, or list-only. */
const INSTANCE_EXCLUDED = new Set(['score', 'distance_to_target', 'pack_name', ...EXTENSION_FIELDS]);

/** Fields a search gives (relevance, distance to a sort target): selectable only where one ran. */
const SEARCH_ONLY = new Set(['score', 'distance_to_target']);

/** What to put in each sound of a response. */
export interface FieldSelection {
  /** Metadata fields, in output order. */
  fields: string[];
  /** Variant B descriptor names, in request order, after the metadata. */
  descriptors: string[];
  /** Variant B: the similarity spaces whose vector is asked (`sim_<space>`), after the descriptors. */
  vectors?: string[];
}

/** The `sim_<space>` field of a similarity space: the sound's vector in it. */
export const vectorField = (space: string) => `sim_${space}`;

/**
 * Applies the contract's rules: without `fields` the defaults (the list defaults, or every metadata
 * field for an instance); with `fields` exactly the listed ones, unknown names ignored, in the
 * canonical order, descriptors (variant B) after them. `*` selects everything, `all_descriptors`
 * every descriptor. `score` and `distance_to_target` are only honoured where the resource allows them.
 */
export function selectFields(
  raw: string | undefined,
  options: { variant: Variant; kind: 'list' | 'instance'; allowScore: boolean },
): FieldSelection {
  const canonical: readonly string[] = options.variant === 'A' ? A_FIELDS : B_FIELDS;
  if (raw === undefined || raw === '') {
    const fields =
      options.kind === 'list' ? LIST_DEFAULT_FIELDS : canonical.filter((f) => !INSTANCE_EXCLUDED.has(f));
    return { fields, descriptors: [] };
  }
  const asked = raw.split(',').map((name) => (name === 'is explicit' ? 'is_explicit' : name));
  const askedSet = new Set(asked);
  const everything = askedSet.has('*');
  const fields = canonical.filter(
    (f) =>
      (askedSet.has(f) || (everything && !EXTENSION_FIELDS.has(f))) &&
      (!SEARCH_ONLY.has(f) || options.allowScore),
  );
  if (options.variant === 'A') return { fields, descriptors: [] };
  const descriptors =
    everything || askedSet.has('all_descriptors')
      ? [...DESCRIPTOR_FIELD_NAMES]
      : [...new Set(asked.filter((name) => DESCRIPTOR_NAME_SET.has(name)))];
  // Upstream: `sim_<space>` for one space's vector, `all_similarity_spaces` (and `*`) for all.
  const allSpaces = everything || askedSet.has('all_similarity_spaces');
  const vectors = listSimilaritySpaces()
    .map((space) => space.name)
    .filter((space) => allSpaces || askedSet.has(vectorField(space)));
  return vectors.length > 0 ? { fields, descriptors, vectors } : { fields, descriptors };
}

/** Options of variant A's `descriptors` / `normalized` parameters. */
export interface VariantAOptions {
  descriptors?: string;
  normalized?: boolean;
}

/** What the use case must read beside each sound's row for these fields to be filled. */
export function soundReads(selection: FieldSelection, variantA: VariantAOptions = {}): SoundReads {
  const reads: SoundReads = {};
  if (selection.descriptors.length > 0) reads.descriptors = selection.descriptors;
  if (selection.vectors?.length) reads.vectors = true;
  // Only variant A's fields name these: a variant B selection never asks for them.
  if (selection.fields.includes('analysis'))
    reads.analysis = { pick: variantA.descriptors, normalized: variantA.normalized };
  if (selection.fields.includes('ac_analysis')) reads.acAnalysis = true;
  return reads;
}
