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
    case 'type':
      return countCodes(index, name, c[name], index.keywords, matches, limit, false).map(([v, n]) => [
        name === 'license' ? licenseValue(v as string) : v,
        n,
      ]);
    default: {
      const column = name as FacetColumn;
      const values = index.facetValues[column];
      return countCodes(index, name, c[column], values, matches, limit, isNumericFacet(name));
    }
  }
}

/**
 * Counts by code, reused from search to search (a search runs to its end without awaiting): the
 * codes a search touched are listed, so that it reads and resets those only, not every value the
 * facet has (tens of thousands of users, packs or tags) when it matched a handful of sounds.
 */
class CodeCounts {
  counts = new Uint32Array(0);
  touched = new Uint32Array(0);
  n = 0;

  /** Room for `codes` codes, every count 0. */
  ready(codes: number): this {
    if (this.counts.length < codes) {
      this.counts = new Uint32Array(Math.ceil(codes * 1.25));
      this.touched = new Uint32Array(this.counts.length);
    }
    return this;
  }

  /** The `limit` most frequent codes as `[value, count]` (count descending, then value), and every count back to 0. */
  top(values: readonly string[], limit: number, numeric: boolean): FacetCount[] {
    const { counts } = this;
    const present: number[] = [];
    for (let i = 0; i < this.n; i++) if (values[this.touched[i]] !== '') present.push(this.touched[i]);
    const byValue = numeric
      ? (a: number, b: number) => Number(values[a]) - Number(values[b])
      : (a: number, b: number) => (values[a] < values[b] ? -1 : values[a] > values[b] ? 1 : 0);
    const kept = topK(present, limit, (a, b) => counts[b] - counts[a] || byValue(a, b)).map(
      (code): FacetCount => [numeric ? Number(values[code]) : values[code], counts[code]],
    );
    for (let i = 0; i < this.n; i++) counts[this.touched[i]] = 0;
    this.n = 0;
    return kept;
  }
}

const scratch = new WeakMap<PostingIndexData, Map<FacetName, CodeCounts>>();

function countsOf(index: PostingIndexData, name: FacetName, codes: number): CodeCounts {
  let byName = scratch.get(index);
  if (!byName) {
    byName = new Map();
    scratch.set(index, byName);
  }
  let counts = byName.get(name);
  if (!counts) {
    counts = new CodeCounts();
    byName.set(name, counts);
  }
  return counts.ready(codes);
}

/** A column facet's top values over the matches (code 0 and `''` stand for no value: never listed). */
function countCodes(
  index: PostingIndexData,
  name: FacetName,
  column: ArrayLike<number>,
  values: readonly string[],
  matches: Uint32Array,
  limit: number,
  numeric: boolean,
): FacetCount[] {
  const scratchCounts = countsOf(index, name, values.length);
  const { counts, touched } = scratchCounts;
  let n = 0;
  for (let i = 0; i < matches.length; i++) {
    const code = column[matches[i]];
    if (counts[code]++ === 0) touched[n++] = code;
  }
  scratchCounts.n = n;
  return scratchCounts.top(values, limit, numeric);
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

/**
 * A search's tags: a match has several, so counting every match's (`perSound`) costs several times
 * the search itself when it matches many sounds. Then the tags are taken instead from the most
 * frequent down (`byFrequency`), each one's count the size of its list's intersection with the
 * matches, until no tag left can reach the `limit`-th count found: with many matches the top
 * tags are found among the first few dozen. That walk stops and falls back to `perSound` once it
 * has read half the postings `perSound` would.
 */
function tagCounts(index: PostingIndexData, matches: Uint32Array, limit: number): FacetCount[] {
  const { starts } = index.tagsBySound;
  const perSoundCost = (starts[starts.length - 1] / Math.max(1, starts.length - 1)) * matches.length;
  if (matches.length < 2000) return perSound(index, matches, limit);
  return byFrequency(index, matches, limit, perSoundCost / 2) ?? perSound(index, matches, limit);
}

/** Tag codes by their base list's length, longest first (per index). */
const tagsByLength = new WeakMap<readonly string[], Uint32Array>();

function tagOrder(index: PostingIndexData): Uint32Array {
  let order = tagsByLength.get(index.tagNames);
  if (!order) {
    const lengths = index.tagNames.map((t) => index.tags.get(t)?.length ?? 0);
    order = Uint32Array.from(index.tagNames.keys()).sort((a, b) => lengths[b] - lengths[a] || a - b);
    tagsByLength.set(index.tagNames, order);
  }
  return order;
}

export function byFrequency(
  index: PostingIndexData,
  matches: Uint32Array,
  limit: number,
  budget: number,
): FacetCount[] | undefined {
  const masked = index.overlay?.masked;
  const member = new Uint8Array(index.columns.present.length);
  // The changed documents among the matches count by their own tags; the base lists by the rest.
  const changed = new Map<string, number>();
  let changedMatches = 0;
  for (let i = 0; i < matches.length; i++) {
    const id = matches[i];
    if (masked && masked[id] === 1) {
      changedMatches++;
      for (const tag of index.overlay?.tagsOf(id) ?? []) changed.set(tag, (changed.get(tag) ?? 0) + 1);
    } else member[id] = 1;
  }
  const found = new Map<string, number>();
  const inBase = (name: string): number => {
    let n = 0;
    const ids = index.tags.get(name);
    if (ids) for (let i = 0; i < ids.length; i++) n += member[ids[i]];
    return n;
  };
  let read = 0;
  // The tags of changed documents first: the bound below holds for every other tag.
  for (const [tag, n] of changed) {
    found.set(tag, inBase(tag) + n);
    read += index.tags.get(tag)?.length ?? 0;
  }
  const kth = () => {
    if (found.size < limit) return 0;
    return [...found.values()].sort((a, b) => b - a)[limit - 1];
  };
  let floor = kth();
  const order = tagOrder(index);
  for (let r = 0; r < order.length; r++) {
    const name = index.tagNames[order[r]];
    const size = index.tags.get(name)?.length ?? 0;
    // No tag from here on holds more of the matches than its list's length (plus a changed document's).
    if (found.size >= limit && size + changedMatches < floor) break;
    // A tie at the limit is broken by name: a tag that can reach the floor is counted.
    if (found.has(name)) continue;
    read += size;
    if (read > budget) return undefined;
    const n = inBase(name);
    if (n > 0) found.set(name, n);
    if (found.size >= limit && n >= floor) floor = kth();
  }
  const all: FacetCount[] = [...found].filter(([, n]) => n > 0);
  return topK(
    all.map((_, i) => i),
    limit,
    (a, b) => all[b][1] - all[a][1] || (all[a][0] < all[b][0] ? -1 : all[a][0] > all[b][0] ? 1 : 0),
  ).map((i) => all[i]);
}

/** Every match's tags counted. */
export function perSound(index: PostingIndexData, matches: Uint32Array, limit: number): FacetCount[] {
  const { starts, tags } = index.tagsBySound;
  const scratchCounts = countsOf(index, 'tags', index.tagNames.length);
  const { counts, touched } = scratchCounts;
  let n = 0;
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
        if (code !== undefined) {
          if (counts[code]++ === 0) touched[n++] = code;
        } else newTags.set(tag, (newTags.get(tag) ?? 0) + 1);
      }
      continue;
    }
    for (let k = starts[id]; k < starts[id + 1]; k++) if (counts[tags[k]]++ === 0) touched[n++] = tags[k];
  }
  scratchCounts.n = n;
  const known = scratchCounts.top(index.tagNames, limit, false);
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
