import {
  compareFacetCounts,
  FACET_NAMES,
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
 * match's value code (tags: of each of its tags), or one pass for every column facet at once
 * (`countColumnsTogether`). A sound changed since the lists were built has its columns current in
 * place, and its tags in the overlay. The values are ordered and written as the database path
 * writes them (facet-statement.ts), so both answer alike.
 */
export function postingFacets(index: PostingIndexData, matches: Uint32Array, request: FacetRequest): Facets {
  const facets: Facets = {};
  const names = [...new Set(request.names)];
  const together = countColumnsTogether(index, matches, names);
  for (const name of names)
    facets[name] =
      name !== 'tags' && together
        ? together[name].top(request.limit)
        : countFacet(index, matches, name, request.limit);
  if (together) for (const name of COLUMN_FACETS) if (!names.includes(name)) together[name].top(0);
  return facets;
}

/** The facets read from a column of codes (every facet but tags). */
type ColumnFacet = Exclude<FacetName, 'tags'>;
const COLUMN_FACETS = FACET_NAMES.filter((name): name is ColumnFacet => name !== 'tags');

/** From this many column facets asked for, one pass over the matches for all of them reads less than one per facet. */
export const TOGETHER_FROM = 4;

/**
 * Every column facet counted in one pass over the matches, when the search asks for several of
 * them and its matches outnumber a quarter of their values: each match's codes are then read from
 * all the columns in one step and added blindly, where a pass per facet would read the matches
 * (and, for a few matches, the columns' cache lines) once per facet. Returns each facet's counts,
 * ready for `top` (those not asked for are to be reset by `top(0)`); undefined when facets are
 * better counted one by one.
 */
function countColumnsTogether(
  index: PostingIndexData,
  matches: Uint32Array,
  names: readonly FacetName[],
): Record<ColumnFacet, CodeCounts> | undefined {
  let asked = 0;
  for (const name of names) if (name !== 'tags') asked++;
  if (asked < TOGETHER_FROM) return undefined;
  const v = index.facetValues;
  const values =
    2 * index.keywords.length +
    v.category.length +
    v.subcategory.length +
    v.username.length +
    v.pack.length +
    v.samplerate.length +
    v.channels.length +
    v.bitdepth.length;
  if (matches.length * 4 < values) return undefined;
  const counts = {
    license: countsOf(index, 'license', index.keywords),
    type: countsOf(index, 'type', index.keywords),
    category: countsOf(index, 'category', v.category),
    subcategory: countsOf(index, 'subcategory', v.subcategory),
    username: countsOf(index, 'username', v.username),
    pack: countsOf(index, 'pack', v.pack),
    samplerate: countsOf(index, 'samplerate', v.samplerate),
    channels: countsOf(index, 'channels', v.channels),
    bitdepth: countsOf(index, 'bitdepth', v.bitdepth),
  };
  const c = index.columns;
  const [license, type, category, subcategory, username, pack, samplerate, channels, bitdepth] = [
    c.license,
    c.type,
    c.category,
    c.subcategory,
    c.username,
    c.pack,
    c.samplerate,
    c.channels,
    c.bitdepth,
  ];
  const [nLicense, nType, nCategory, nSubcategory, nUsername, nPack, nSamplerate, nChannels, nBitdepth] =
    COLUMN_FACETS.map((name) => counts[name].counts);
  for (let i = 0; i < matches.length; i++) {
    const id = matches[i];
    nLicense[license[id]]++;
    nType[type[id]]++;
    nCategory[category[id]]++;
    nSubcategory[subcategory[id]]++;
    nUsername[username[id]]++;
    nPack[pack[id]]++;
    nSamplerate[samplerate[id]]++;
    nChannels[channels[id]]++;
    nBitdepth[bitdepth[id]]++;
  }
  for (const name of COLUMN_FACETS) counts[name].gather();
  return counts;
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

  /**
   * Whether `adds` additions are better counted blindly (`counts[code]++`) and the touched codes
   * found after by reading every count (`gather`): when they outnumber the facet's values, listing
   * each code as it is first met costs more than that one read of every count.
   */
  blind(adds: number): boolean {
    return adds >= this.values.length;
  }

  /** After blind additions: the codes counted, listed as `add` lists them. */
  gather(): void {
    const { counts, touched } = this;
    let n = 0;
    for (let code = 0; code < this.values.length; code++) if (counts[code] !== 0) touched[n++] = code;
    this.n = n;
  }

  /** Each match's code in a column counted. */
  countColumn(column: Uint16Array | Uint32Array, matches: Uint32Array): void {
    if (!this.blind(matches.length)) {
      for (let i = 0; i < matches.length; i++) this.add(column[matches[i]]);
      return;
    }
    const counts = this.counts;
    for (let i = 0; i < matches.length; i++) counts[column[matches[i]]]++;
    this.gather();
  }

  /** Whether code `a` comes before `b` in a facet: count descending, then value (numbers by value, strings by code unit, as facet-statement.ts orders them). */
  private before(a: number, b: number): boolean {
    const { counts, rank, keys } = this;
    if (counts[a] !== counts[b]) return counts[a] > counts[b];
    if (a < rank.length && b < rank.length) return rank[a] < rank[b];
    return keys[a] < keys[b];
  }

  /**
   * A count the `limit`-th most frequent value reaches at least: the `limit`-th largest among some
   * of the values counted (every few of them), so that a value counted less can be passed over
   * without ordering it, when thousands were counted and only the first few are listed.
   */
  private floor(limit: number): number {
    const { counts, touched, none } = this;
    const step = Math.max(1, Math.floor(this.n / (4 * limit)));
    const some: number[] = [];
    for (let i = 0; i < this.n; i += step) if (touched[i] !== none) some.push(counts[touched[i]]);
    return some.length < limit ? 0 : some.sort((a, b) => b - a)[limit - 1];
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
      const floor = this.floor(limit);
      const present: number[] = [];
      for (let i = 0; i < this.n; i++) {
        const code = touched[i];
        if (code !== none && counts[code] >= floor) present.push(code);
      }
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
  column: Uint16Array | Uint32Array,
  matches: Uint32Array,
  limit: number,
): FacetCount[] {
  counts.countColumn(column, matches);
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
 * the search itself when it matches many sounds. Then the tags can be taken instead from the most
 * frequent down (`byFrequency`), each one's count the size of its list's intersection with the
 * matches, until no tag left can reach the `limit`-th count found: with many matches the top tags
 * are found among the first few dozen. Which of the two reads less is decided before reading: the
 * walk's length is foreseen from the matches' share of the sounds (`TagWalk.expected`), and a walk
 * that turns out longer gives up as soon as its first `limit` tags show it.
 */
function tagCounts(index: PostingIndexData, matches: Uint32Array, limit: number): FacetCount[] {
  const perSoundCost = averageTags(index) * matches.length;
  if (tagWalk(index).expected(matches.length, limit) > perSoundCost) return perSound(index, matches, limit);
  return byFrequency(index, matches, limit, perSoundCost) ?? perSound(index, matches, limit);
}

/** Tags of a sound of the base lists, on average. */
function averageTags(index: PostingIndexData): number {
  const { starts } = index.tagsBySound;
  return starts[starts.length - 1] / Math.max(1, starts.length - 1);
}

/** The base lists' tags from the longest list down, and what reading them costs (per index). */
class TagWalk {
  /** Tag codes, longest list first (ties by code). */
  readonly order: Uint32Array;
  /** Their lists, in that order. */
  readonly lists: Uint32Array[];
  /** `read[r]`: the postings of the first `r` tags of `order`. */
  readonly read: Float64Array;
  /** Sounds in the base lists. */
  readonly sounds: number;

  constructor(index: PostingIndexData) {
    const lists = index.tagNames.map((t) => index.tags.get(t) ?? new Uint32Array(0));
    this.order = Uint32Array.from(index.tagNames.keys()).sort(
      (a, b) => lists[b].length - lists[a].length || a - b,
    );
    this.lists = Array.from(this.order, (code) => lists[code]);
    this.read = new Float64Array(this.lists.length + 1);
    for (let r = 0; r < this.lists.length; r++) this.read[r + 1] = this.read[r] + this.lists[r].length;
    let sounds = 0;
    for (const p of index.columns.present) sounds += p;
    this.sounds = Math.max(1, sounds);
  }

  /** How many tags of `order` have a list of at least `size` postings. */
  reaching(size: number): number {
    let lo = 0;
    let hi = this.lists.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.lists[mid].length >= size) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * The postings a walk reads for `matches` matches if they held tags as every sound does: the
   * `limit`-th count is then that share of the `limit`-th longest list, and every tag whose list
   * reaches it is read. Matches that share tags (a word and its tag) raise that count and shorten
   * the walk; fewer shared lengthen it, which the walk finds after its first `limit` tags.
   */
  expected(matches: number, limit: number): number {
    if (!this.lists.length) return 0;
    const kth = this.lists[Math.min(limit, this.lists.length) - 1].length;
    return this.read[this.reaching(Math.max(1, (kth * matches) / this.sounds))];
  }
}

const tagWalks = new WeakMap<readonly string[], TagWalk>();

function tagWalk(index: PostingIndexData): TagWalk {
  let walk = tagWalks.get(index.tagNames);
  if (!walk) {
    walk = new TagWalk(index);
    tagWalks.set(index.tagNames, walk);
  }
  return walk;
}

/**
 * The `limit` most frequent tags of the matches from the tags' lists, longest first (see
 * `tagCounts`); undefined, having read little, when that would read more than `budget` postings.
 */
export function byFrequency(
  index: PostingIndexData,
  matches: Uint32Array,
  limit: number,
  budget: number,
): FacetCount[] | undefined {
  const walk = tagWalk(index);
  if (walk.read[Math.min(limit, walk.lists.length)] > budget) return undefined;
  const masked = index.overlay?.masked;
  const member = memberOf(index);
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
  try {
    return walkTags(index, walk, member, changed, changedMatches, limit, budget);
  } finally {
    for (let i = 0; i < matches.length; i++) member[matches[i]] = 0;
  }
}

/** Membership of the matches by id, per index: all 0 between searches (a search sets and clears its matches'). */
const members = new WeakMap<PostingIndexData['columns'], Uint8Array>();

function memberOf(index: PostingIndexData): Uint8Array {
  let member = members.get(index.columns);
  if (!member || member.length < index.columns.present.length) {
    member = new Uint8Array(index.columns.present.length);
    members.set(index.columns, member);
  }
  return member;
}

/** byFrequency's walk, the matches of the base lists marked in `member`. */
function walkTags(
  index: PostingIndexData,
  walk: TagWalk,
  member: Uint8Array,
  changed: ReadonlyMap<string, number>,
  changedMatches: number,
  limit: number,
  budget: number,
): FacetCount[] | undefined {
  const found = new Map<string, number>();
  const inBase = (ids: Uint32Array | undefined): number => {
    let n = 0;
    if (ids) for (let i = 0; i < ids.length; i++) n += member[ids[i]];
    return n;
  };
  let read = 0;
  // The tags of changed documents first: the bound below holds for every other tag.
  for (const [tag, n] of changed) {
    const ids = index.tags.get(tag);
    found.set(tag, inBase(ids) + n);
    read += ids?.length ?? 0;
  }
  const kth = () => {
    if (found.size < limit) return 0;
    return [...found.values()].sort((a, b) => b - a)[limit - 1];
  };
  let floor = kth();
  let foreseen = false;
  for (let r = 0; r < walk.lists.length; r++) {
    const size = walk.lists[r].length;
    // No tag from here on holds more of the matches than its list's length (plus a changed document's).
    if (found.size >= limit && size + changedMatches < floor) break;
    // Once the floor is known, so is the rest of the walk at most: every tag whose list reaches it.
    if (found.size >= limit && !foreseen) {
      foreseen = true;
      const rest = walk.read[Math.max(r, walk.reaching(floor - changedMatches))] - walk.read[r];
      if (read + rest > budget) return undefined;
    }
    const name = index.tagNames[walk.order[r]];
    // A tie at the limit is broken by name: a tag that can reach the floor is counted.
    if (found.has(name)) continue;
    read += size;
    if (read > budget) return undefined;
    const n = inBase(walk.lists[r]);
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
  const blind = counts.blind(matches.length * averageTags(index));
  const c = counts.counts;
  // Tags of changed documents that the base lists do not know.
  let newTags: Map<string, number> | undefined;
  let codes: Map<string, number> | undefined;
  for (let i = 0; i < matches.length; i++) {
    const id = matches[i];
    if (masked && masked[id] === 1) {
      codes ??= tagCodeOf(index.tagNames);
      for (const tag of overlay?.tagsOf(id) ?? []) {
        const code = codes.get(tag);
        if (code === undefined) {
          newTags ??= new Map();
          newTags.set(tag, (newTags.get(tag) ?? 0) + 1);
        } else if (blind) c[code]++;
        else counts.add(code);
      }
      continue;
    }
    const end = starts[id + 1];
    if (blind) for (let k = starts[id]; k < end; k++) c[tags[k]]++;
    else for (let k = starts[id]; k < end; k++) counts.add(tags[k]);
  }
  if (blind) counts.gather();
  const known = counts.top(limit);
  if (!newTags) return known;
  const all: FacetCount[] = [...known, ...newTags];
  return topK(
    all.map((_, i) => i),
    limit,
    (a, b) => compareFacetCounts(all[a], all[b]),
  ).map((i) => all[i]);
}
