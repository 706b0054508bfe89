import {
  type FacetCount,
  type FacetName,
  type FacetRequest,
  type Facets,
  isNumericFacet,
  licenseValue,
} from './facets.ts';
import type { FacetColumn, PostingIndexData } from './posting-index.ts';
import { topK } from './posting-index.ts';

/**
 * The facets of a search the posting index answers, counted over its matches (ascending ids) from
 * the per-sound columns: one pass over the matches per facet, adding one to the count of each
 * match's value code (tags: of each of its tags). A sound changed since the lists were built
 * has its columns current in place, and its tags in the overlay. The values are ordered and
 * written as the database path writes them (facet-statement.ts), so both answer alike.
 */
export function postingFacets(index: PostingIndexData, matches: Uint32Array, request: FacetRequest): Facets {
  const facets: Facets = {};
  for (const name of request.names) facets[name] = countFacet(index, matches, name, request.limit);
  return facets;
}

function countFacet(
  index: PostingIndexData,
  matches: Uint32Array,
  name: FacetName,
  limit: number,
): FacetCount[] {
  const c = index.columns;
  switch (name) {
    case 'tags':
      return tagCounts(index, matches, limit);
    case 'license':
    case 'type': {
      const counts = codeCounts(c[name], index.keywords.length, matches);
      return top(counts, index.keywords, limit, false).map(([v, n]) => [
        name === 'license' ? licenseValue(v as string) : v,
        n,
      ]);
    }
    default: {
      const column = name as FacetColumn;
      const values = index.facetValues[column];
      return top(codeCounts(c[column], values.length, matches), values, limit, isNumericFacet(name));
    }
  }
}

/** Matches per code of `column` (code 0 and `''` stand for no value: never counted). */
function codeCounts(column: ArrayLike<number>, codes: number, matches: Uint32Array): Uint32Array {
  const counts = new Uint32Array(codes);
  for (let i = 0; i < matches.length; i++) counts[column[matches[i]]]++;
  return counts;
}

/** The `limit` most frequent codes as `[value, count]`, count descending then value ascending. */
function top(counts: Uint32Array, values: readonly string[], limit: number, numeric: boolean): FacetCount[] {
  const present: number[] = [];
  for (let code = 0; code < counts.length; code++)
    if (counts[code] > 0 && values[code] !== '') present.push(code);
  const byValue = numeric
    ? (a: number, b: number) => Number(values[a]) - Number(values[b])
    : (a: number, b: number) => (values[a] < values[b] ? -1 : values[a] > values[b] ? 1 : 0);
  return topK(present, limit, (a, b) => counts[b] - counts[a] || byValue(a, b)).map((code) => [
    numeric ? Number(values[code]) : values[code],
    counts[code],
  ]);
}

/** Tag names by their index in `tagNames`, per index. */
const tagCodes = new WeakMap<readonly string[], Map<string, number>>();

function tagCodeOf(names: readonly string[]): Map<string, number> {
  let codes = tagCodes.get(names);
  if (!codes) {
    codes = new Map(names.map((t, i) => [t, i]));
    tagCodes.set(names, codes);
  }
  return codes;
}

function tagCounts(index: PostingIndexData, matches: Uint32Array, limit: number): FacetCount[] {
  const { starts, tags } = index.tagsBySound;
  const counts = new Uint32Array(index.tagNames.length);
  const overlay = index.overlay;
  const masked = overlay?.masked;
  // Tags of changed documents that the base lists do not know.
  const newTags = new Map<string, number>();
  let codes: Map<string, number> | undefined;
  for (let i = 0; i < matches.length; i++) {
    const id = matches[i];
    if (masked && masked[id] === 1) {
      codes ??= tagCodeOf(index.tagNames);
      for (const tag of overlay?.tagsOf(id) ?? []) {
        const code = codes.get(tag);
        if (code !== undefined) counts[code]++;
        else newTags.set(tag, (newTags.get(tag) ?? 0) + 1);
      }
      continue;
    }
    for (let k = starts[id]; k < starts[id + 1]; k++) counts[tags[k]]++;
  }
  const known = top(counts, index.tagNames, limit, false);
  if (!newTags.size) return known;
  const all: FacetCount[] = [...known, ...newTags];
  const order = (a: number, b: number) =>
    all[b][1] - all[a][1] || (all[a][0] < all[b][0] ? -1 : all[a][0] > all[b][0] ? 1 : 0);
  return topK(
    all.map((_, i) => i),
    limit,
    order,
  ).map((i) => all[i]);
}
