import {
  DEFAULT_FACET_LIMIT,
  FACET_NAMES,
  type FacetName,
  isFacetName,
  MAX_FACET_LIMIT,
} from '@earshot/catalogue';
import { z } from 'zod';
import { commaList, fieldsParam, pageParam, pageSizeParam } from '../../framework/http/params.ts';

const variantA = {
  descriptors: commaList('variant A: dotted descriptor names for the `analysis` field'),
  normalized: z.string().optional().describe('variant A: 1 returns normalized descriptor values'),
};

/** Cursor paging (docs/api.md "Cursor paging"), on every sound list and search. */
const cursorParam = z
  .string()
  .optional()
  .describe(
    'earshot: cursor paging instead of `page`. `*` starts a walk that lists each sound public for its whole length exactly once, in any sort, while sounds are added, edited or removed; `next` and `previous` then carry the cursor of the page beside. 400 when expired (an hour unused) or given with `page`',
  );

export const soundListQuery = z.object({
  page: pageParam,
  cursor: cursorParam,
  page_size: pageSizeParam,
  fields: fieldsParam,
  ...variantA,
});

export const plainListQuery = z.object({ page: pageParam, page_size: pageSizeParam });

export const soundInstanceQuery = z.object({ fields: fieldsParam, ...variantA });

const text = (description: string) => z.string().optional().describe(description);

/** `facets`: comma-separated facet names, each known (issue 36). */
const facetsParam = z
  .string()
  .optional()
  .transform((value, ctx): FacetName[] | undefined => {
    if (value === undefined) return undefined;
    const names = value
      .split(',')
      .map((n) => n.trim())
      .filter((n) => n !== '');
    const unknown = names.filter((n) => !isFacetName(n));
    if (!names.length || unknown.length) {
      const what = names.length
        ? `unknown facet ${unknown.map((n) => `"${n}"`).join(', ')}`
        : 'no facet named';
      ctx.addIssue({ code: 'custom', message: `${what}; the facets are ${FACET_NAMES.join(', ')}` });
      return z.NEVER;
    }
    return [...new Set(names)] as FacetName[];
  })
  .describe(
    `earshot: comma-separated facets to count over every match, beside the page (${FACET_NAMES.join(', ')}); the answer's \`facets\` holds, per facet, its most frequent values as [value, count], count descending`,
  );

/** `facet_limit`: values per facet. */
const facetLimitParam = z
  .string()
  .optional()
  .transform((value, ctx): number | undefined => {
    if (value === undefined) return undefined;
    const n = /^\s*\d{1,4}\s*$/.test(value) ? Number(value) : Number.NaN;
    if (!(n >= 1 && n <= MAX_FACET_LIMIT)) {
      ctx.addIssue({ code: 'custom', message: `must be an integer from 1 to ${MAX_FACET_LIMIT}` });
      return z.NEVER;
    }
    return n;
  })
  .describe(`earshot: values per facet (default ${DEFAULT_FACET_LIMIT}, at most ${MAX_FACET_LIMIT})`);

export const textSearchQuery = soundListQuery.extend({
  query: text('words to search for; `+` and `-` prefixes, "quoted phrases"; empty matches everything'),
  filter: text('field:value terms, ranges [a TO b], AND/OR/NOT and parentheses'),
  sort: text(
    'score, duration_desc|asc, created_desc|asc, downloads_desc|asc, rating_desc|asc; or target values `name:number[,name:number…]` (numeric sound fields and descriptors, e.g. `bpm:120,pitch:440`): nearest first by the Euclidean distance of the raw values, sounds lacking one last; the distance is the selectable field `distance_to_target`',
  ),
  weights: text('field:weight pairs for the query (id, tags, description, username, pack, name)'),
  group_by_pack: text('1 returns one sound per pack'),
  similar_to: text('a sound id or a JSON vector: sort by similarity to it instead of the query'),
  similarity_space: text('similarity space of similar_to (default: the default space)'),
  facets: facetsParam,
  facet_limit: facetLimitParam,
});

const exampleSpace = text(
  'earshot: the similarity space an analysis_file or audio_file is compared in (default: the default space when the example holds what it needs, else the descriptors a sound-id target compares)',
);

export const contentSearchQuery = soundListQuery.extend({
  target: text('descriptor:value pairs separated by spaces (vectors as comma lists), or a sound id'),
  descriptors_filter: text('descriptor ranges and values with AND/OR and parentheses'),
  similarity_space: exampleSpace,
});

export const combinedSearchQuery = soundListQuery.extend({
  query: textSearchQuery.shape.query,
  filter: textSearchQuery.shape.filter,
  sort: text('score, duration_desc|asc, created_desc|asc, downloads_desc|asc, rating_desc|asc'),
  target: contentSearchQuery.shape.target,
  descriptors_filter: contentSearchQuery.shape.descriptors_filter,
  similarity_space: exampleSpace,
});

export const similarQuery = soundListQuery.extend({
  similarity_space: text('similarity space (default: the default space)'),
  descriptors_filter: text('variant A: descriptor ranges and values the similar sounds must match'),
});

export const analysisQuery = z.object({
  fields: commaList('variant B: descriptor names to return (default: all)'),
  ...variantA,
});
