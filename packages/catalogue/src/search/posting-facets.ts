import {
  compareFacetCounts,
  type FacetCount,
  type FacetName,
  type FacetRequest,
  type Facets,
  isNumericFacet,
  licenseValue,
  MAX_FACET_LIMIT,
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
      return countCodes(countsOf(index, name, index.keywords), c[name], matches, limit);
    default: {
      const column = name as FacetColumn;
      return countCodes(countsOf(index, name, index.facetValues[column]), c[column], matches, limit);
    }
  }
}

/**
 * Up to this many values counted in a search, its top values are kept by an insertion into a
 * short sorted list (each value read once, and mostly compared with the last kept only); above,
 * by a heap (topK). The insertion's worst case is this many times the limit.
 */
export const FEW_VALUES = 256;

/**
 * One facet's counting, reused from search to search (a search runs to its end without awaiting):
 * a search adds each match's code (`add`), then `top` gives the most frequent values and leaves
 * every count at 0 again. The codes a search touched are listed, so that it reads and resets
 * those only, not every value the facet has (tens of thousands of users, packs or tags) when it
 * matched a handful of sounds.
 */
class CodeCounts {
  counts: Uint32Array = new Uint32Array(0);
  touched: Uint32Array = new Uint32Array(0);
  n = 0;
  /** The best codes so far, in order, while `top` keeps them by insertion. */
  kept: Uint32Array = new Uint32Array(MAX_FACET_LIMIT);
  /** How the answer writes each code's value, and the order of the values (`rankOf`). */
  shown: (string | number)[] = [];
  keys: (string | number)[] = [];
  rank: Uint32Array = new Uint32Array(0);
  /** The code of `''` (no value: never listed), -1 when the facet has none. */
  none = -1;
  values: readonly string[] = [];

  constructor(
    private readonly numeric: boolean,
    private readonly license: boolean,
  ) {}

  /** Ready for a search over a facet whose values by code are `values`. */
  start(values: readonly string[]): this {
    if (this.counts.length < values.length) {
      this.counts = new Uint32Array(Math.ceil(values.length * 1.25));
      this.touched = new Uint32Array(this.counts.length);
    }
    // The live index appends values (a new user, a new pack): they are added as they come.
    if (this.values !== values || this.shown.length > values.length) {
      this.values = values;
      this.shown = [];
      this.keys = [];
      this.none = -1;
    }
    for (let code = this.shown.length; code < values.length; code++) {
      const v = values[code];
      if (v === '') this.none = code;
      this.keys.push(this.numeric ? Number(v) : v);
      this.shown.push(this.numeric ? Number(v) : this.license ? licenseValue(v) : v);
    }
    if (this.rank.length !== values.length) this.rank = rankOf(values, this.keys);
    this.n = 0;
    return this;
  }

  add(code: number): void {
    if (this.counts[code]++ === 0) this.touched[this.n++] = code;
  }

  /** Whether code `a` comes before `b` in a facet: count descending, then value (numbers by value, strings by code unit, as facet-statement.ts orders them). */
  private before(a: number, b: number): boolean {
    const { counts, rank, keys } = this;
    if (counts[a] !== counts[b]) return counts[a] > counts[b];
    if (a < rank.length && b < rank.length) return rank[a] < rank[b];
    return keys[a] < keys[b];
  }

  /** The `limit` most frequent values as `[value, count]` (`''`, no value, never listed), and every count back to 0. */
  top(limit: number): FacetCount[] {
    const { counts, touched, none } = this;
    let best: ArrayLike<number> = this.kept;
    let kept = 0;
    if (this.n <= FEW_VALUES) {
      for (let i = 0; i < this.n; i++) {
        const code = touched[i];
        if (code === none) continue;
        let at = kept < limit ? kept++ : limit;
        for (; at > 0 && this.before(code, this.kept[at - 1]); at--)
          if (at < limit) this.kept[at] = this.kept[at - 1];
        if (at < limit) this.kept[at] = code;
      }
    } else {
      const present: number[] = [];
      for (let i = 0; i < this.n; i++) if (touched[i] !== none) present.push(touched[i]);
      best = topK(present, limit, (a, b) => (this.before(a, b) ? -1 : this.before(b, a) ? 1 : 0));
      kept = best.length;
    }
    const top: FacetCount[] = new Array(kept);
    for (let k = 0; k < kept; k++) top[k] = [this.shown[best[k]], counts[best[k]]];
    for (let i = 0; i < this.n; i++) counts[touched[i]] = 0;
    this.n = 0;
    return top;
  }
}

/**
 * Each code's place among a facet's values in order (per value list): comparing two values of a
 * search's few matches is then comparing two numbers, where a tie between tags would compare their
 * strings. Values appended after it was made (the live index's) compare by themselves until an
 * eighth of the list is new and it is made again.
 */
const ranks = new WeakMap<readonly string[], Uint32Array>();

function rankOf(values: readonly string[], keys: readonly (string | number)[]): Uint32Array {
  let rank = ranks.get(values);
  if (!rank || values.length - rank.length > rank.length / 8) {
    const order = Array.from(keys.keys()).sort((a, b) =>
      keys[a] < keys[b] ? -1 : keys[a] > keys[b] ? 1 : 0,
    );
    rank = new Uint32Array(keys.length);
    for (let i = 0; i < order.length; i++) rank[order[i]] = i;
    ranks.set(values, rank);
  }
  return rank;
}

const scratch = new WeakMap<PostingIndexData, Map<FacetName, CodeCounts>>();

/** The facet's counting of this index, ready for a search. */
function countsOf(index: PostingIndexData, name: FacetName, values: readonly string[]): CodeCounts {
  let byName = scratch.get(index);
  if (!byName) {
    byName = new Map();
    scratch.set(index, byName);
  }
  let counts = byName.get(name);
  if (!counts) {
    counts = new CodeCounts(isNumericFacet(name), name === 'license');
    byName.set(name, counts);
  }
  return counts.start(values);
}

/** A column facet's top values over the matches (code 0 and `''` stand for no value: never listed). */
function countCodes(
  counts: CodeCounts,
  column: ArrayLike<number>,
  matches: Uint32Array,
  limit: number,
): FacetCount[] {
  for (let i = 0; i < matches.length; i++) counts.add(column[matches[i]]);
  return counts.top(limit);
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
  const counts = countsOf(index, 'tags', index.tagNames);
  const overlay = index.overlay;
  const masked = overlay?.masked;
  // Tags of changed documents that the base lists do not know.
  let newTags: Map<string, number> | undefined;
  let codes: Map<string, number> | undefined;
  for (let i = 0; i < matches.length; i++) {
    const id = matches[i];
    if (masked && masked[id] === 1) {
      codes ??= tagCodeOf(index.tagNames);
      for (const tag of overlay?.tagsOf(id) ?? []) {
        const code = codes.get(tag);
        if (code !== undefined) counts.add(code);
        else {
          newTags ??= new Map();
          newTags.set(tag, (newTags.get(tag) ?? 0) + 1);
        }
      }
      continue;
    }
    for (let k = starts[id]; k < starts[id + 1]; k++) counts.add(tags[k]);
  }
  const known = counts.top(limit);
  if (!newTags) return known;
  const all: FacetCount[] = [...known, ...newTags];
  return topK(
    all.map((_, i) => i),
    limit,
    (a, b) => compareFacetCounts(all[a], all[b]),
  ).map((i) => all[i]);
}
