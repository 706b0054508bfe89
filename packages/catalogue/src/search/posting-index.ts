import type { FilterNode } from './filter-ast.ts';
import { type PhraseChain, type Positions, RankScratch, rankOrder } from './multi-lexeme-rank.ts';
import type { PreparedSearch } from './prepare.ts';

/**
 * The search document held in a process's memory (issue 33): one posting list per lexeme (the
 * ids of the visible sounds whose document holds it, ascending, each with the lexeme's own
 * `ts_rank` under the default weights), one id list per tag, and one column per filter and sort
 * field indexed by sound id. It answers the searches of the realistic log (required words and
 * quoted phrases, the filters of `supportsFilter`, every sort, group_by_pack) with an exact count,
 * whatever the number of matches: intersecting sorted lists and reading typed columns costs a few
 * nanoseconds per match where PostgreSQL visits a heap tuple (0.5–1.6 µs). PostgreSQL stays the
 * source of truth: the index is derived from `sound_search` (posting-index-load.ts).
 */

/** One lexeme's documents: ascending ids, the lexeme's score in each (ts_rank of it alone) and its positions there. */
export interface PostingList {
  readonly ids: Uint32Array;
  readonly scores: Float32Array;
  readonly positions: Positions;
}

/** Per-sound columns, indexed by sound id (absent sounds hold `present[id] = 0`). */
export interface SoundColumns {
  readonly present: Uint8Array;
  readonly duration: Float64Array;
  readonly created: Float64Array;
  readonly downloads: Int32Array;
  readonly rating: Float64Array;
  readonly numRatings: Int32Array;
  /** Index into `keywords` of the lower-cased license / type. */
  readonly license: Uint16Array;
  readonly type: Uint16Array;
  /** 0 = no pack. */
  readonly packId: Int32Array;
  /** NaN = no tempo. */
  readonly bpm: Float32Array;
  /** Facet columns: each a code into its list of `PostingIndexData.facetValues` (0 = no value). */
  readonly category: Uint16Array;
  readonly subcategory: Uint16Array;
  readonly username: Uint32Array;
  /** The pack as its `pack_grouping` value (`<id>_<name>`). */
  readonly pack: Uint32Array;
  readonly samplerate: Uint32Array;
  readonly channels: Uint16Array;
  readonly bitdepth: Uint16Array;
}

/** The per-sound columns that hold facet values by code. */
export const FACET_COLUMNS = [
  'category',
  'subcategory',
  'username',
  'pack',
  'samplerate',
  'channels',
  'bitdepth',
] as const;
export type FacetColumn = (typeof FACET_COLUMNS)[number];

/** Each sound's tags, as indexes into `tagNames`: those of sound `id` are `tags[starts[id]] … tags[starts[id + 1] - 1]`. */
export interface TagsBySound {
  readonly starts: Uint32Array;
  readonly tags: Uint32Array;
}

export interface PostingIndexData {
  readonly lexemes: ReadonlyMap<string, PostingList>;
  readonly tags: ReadonlyMap<string, Uint32Array>;
  readonly columns: SoundColumns;
  /** Lower-cased license and type values; the columns hold their index. */
  readonly keywords: readonly string[];
  readonly maxPackId: number;
  /** Per facet column, its values by code (`''` at code 0, no value); numbers in their decimal form. */
  readonly facetValues: Readonly<Record<FacetColumn, readonly string[]>>;
  /** The tags of the base lists, in `tags`' order: what `tagsBySound` indexes. */
  readonly tagNames: readonly string[];
  /** The tags of each sound of the base lists (a sound in the overlay: `overlay.tagsOf`). */
  readonly tagsBySound: TagsBySound;
  /** The documents changed since the lists were built (live-posting-index.ts); none when absent. */
  readonly overlay?: PostingOverlay;
}

/**
 * Documents changed after the base lists were built: their ids are masked in the base lists, and
 * their current postings and tags are looked up here. An id masked and absent from the overlay
 * has no document any more (deleted or hidden).
 */
export interface PostingOverlay {
  /** 1 where the base lists' postings of the id no longer hold (indexed by id; shorter = unmasked). */
  readonly masked: Uint8Array;
  /** The masked ids, ascending. */
  maskedIds(): Uint32Array;
  /** A lexeme's changed documents (ascending), or undefined when none holds it. */
  lexeme(name: string): PostingList | undefined;
  /** A tag's changed documents (ascending), or undefined when none holds it. */
  tag(name: string): Uint32Array | undefined;
  /** The tags of a changed document (a masked id), or undefined when it has no document any more. */
  tagsOf(id: number): readonly string[] | undefined;
}

const NO_IDS = new Uint32Array(0);

/** The ascending ids of the base list that the overlay has not masked. */
function unmasked(ids: Uint32Array, overlay: PostingOverlay | undefined): Uint32Array {
  if (!overlay || overlay.maskedIds().length === 0) return ids;
  const masked = overlay.masked;
  let n = 0;
  const out = new Uint32Array(ids.length);
  for (const id of ids) if (masked[id] !== 1) out[n++] = id;
  return n === ids.length ? ids : out.subarray(0, n);
}

/** Two ascending id lists with no id in common, merged. */
function mergeDisjoint(a: Uint32Array, b: Uint32Array): Uint32Array {
  if (!b.length) return a;
  if (!a.length) return b;
  const out = new Uint32Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) out[n++] = a[i] < b[j] ? a[i++] : b[j++];
  while (i < a.length) out[n++] = a[i++];
  while (j < b.length) out[n++] = b[j++];
  return out;
}

/** A tag's current documents: the base list minus the masked ids, plus the overlay's. */
function tagIds(index: PostingIndexData, tag: string): Uint32Array {
  const base = unmasked(index.tags.get(tag) ?? NO_IDS, index.overlay);
  return mergeDisjoint(base, index.overlay?.tag(tag) ?? NO_IDS);
}

/** What the index found: the exact count, the page's ids and their ts_rank. */
export interface PostingAnswer {
  /** Matches, or groups when grouped by pack. */
  readonly count: number;
  readonly ids: number[];
  readonly scores: number[];
  readonly packGroups?: ({ packId: number; count: number } | null)[];
  /**
   * A relevance page of several words with more than RERANK_ALL matches: ranked exactly among the
   * best RERANK_POOL by the sum of the words' own scores, or (grouped) its representatives chosen
   * by that sum.
   */
  readonly approximate?: boolean;
  /** Every match, ascending, when the search asks for facets (posting-facets.ts counts them). */
  readonly matches?: Uint32Array;
}

/** A lexeme's score in one document of its list (0 when absent). */
function scoreIn(list: PostingList, id: number): number {
  let lo = 0;
  let hi = list.ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list.ids[mid] < id) lo = mid + 1;
    else hi = mid;
  }
  return list.ids[lo] === id ? list.scores[lo] : 0;
}

/** Matches of a several-word relevance search that are all ranked exactly, at most. */
export const RERANK_ALL = 20_000;
/** Above RERANK_ALL, the candidates by the sum of the words' own scores that are ranked exactly. */
export const RERANK_POOL = 2_000;

/** ts_rank's default weights by weight class code (D = 0 … A = 3), as compile-query's defaults. */
export const DEFAULT_CLASS_WEIGHTS = [0.25, 0.5, 0.75, 1] as const;

/**
 * ts_rank of one lexeme in one document (PostgreSQL's calc_rank_or with one query item), in
 * float4 as PostgreSQL computes it: `positions` are the lexeme's positions in the document in
 * order, as WordEntryPos (the weight class code above the 14 bits of the position).
 */
export function singleLexemeRank(
  positions: ArrayLike<number>,
  weights: readonly number[] = DEFAULT_CLASS_WEIGHTS,
) {
  const f = Math.fround;
  let resj = 0;
  let wjm = -1;
  let jm = 0;
  for (let j = 0; j < positions.length; j++) {
    const w = f(weights[positions[j] >> 14]);
    resj = f(resj + f(w / ((j + 1) * (j + 1))));
    if (w > wjm) {
      wjm = w;
      jm = j;
    }
  }
  // The C divides the float sum by a double constant: that step is in double, then stored as float.
  return f(f(f(wjm + resj) - f(wjm / ((jm + 1) * (jm + 1)))) / 1.64493406685);
}

/** Ascending intersection of ascending id lists (smallest first, each step by intersectTwo). */
export function intersect(lists: readonly Uint32Array[]): Uint32Array {
  if (!lists.length) return new Uint32Array(0);
  const sorted = [...lists].sort((a, b) => a.length - b.length);
  let acc = sorted[0];
  for (let l = 1; l < sorted.length && acc.length; l++) acc = intersectTwo(acc, sorted[l]);
  return acc;
}

/**
 * Below this ratio of lengths two lists are merged; above it the shorter gallops into the longer
 * (a merge step costs a few comparisons, a gallop a few more and a binary search).
 */
const MERGE_RATIO = 8;

/** Ascending intersection of two ascending lists, `short` no longer than `long`. */
function intersectTwo(short: Uint32Array, long: Uint32Array): Uint32Array {
  const out = new Uint32Array(short.length);
  let n = 0;
  if (long.length < short.length * MERGE_RATIO) {
    let i = 0;
    let j = 0;
    // Without branches on the ids (which way the merge steps is a coin toss the CPU mispredicts).
    while (i < short.length && j < long.length) {
      const a = short[i];
      const b = long[j];
      out[n] = a;
      n += +(a === b);
      i += +(a <= b);
      j += +(a >= b);
    }
  } else {
    let lo = 0;
    for (let i = 0; i < short.length; i++) {
      const v = short[i];
      lo = seek(long, v, lo);
      if (lo >= long.length) break;
      if (long[lo] === v) out[n++] = v;
    }
  }
  return out.subarray(0, n);
}

/** Filters the index evaluates from its columns; any other filter leaves the search to PostgreSQL. */
export function supportsFilter(node: FilterNode | null): boolean {
  if (!node) return true;
  switch (node.kind) {
    case 'and':
    case 'or':
      return node.children.every(supportsFilter);
    case 'not':
      return supportsFilter(node.child);
    case 'all':
      return true;
    case 'match':
      if (node.field.kind !== 'field') return false;
      if (node.field.def.name === 'tag') return node.value.type === 'string';
      return (
        (node.field.def.name === 'license' || node.field.def.name === 'type') && node.value.type === 'string'
      );
    case 'range':
      return (
        node.field.kind === 'field' &&
        RANGE_COLUMNS.has(node.field.def.name) &&
        !(node.lower?.value instanceof Date) &&
        !(node.upper?.value instanceof Date)
      );
    default:
      return false;
  }
}

const RANGE_COLUMNS = new Map<string, keyof SoundColumns>([
  ['duration', 'duration'],
  ['bpm', 'bpm'],
  ['num_downloads', 'downloads'],
  ['avg_rating', 'rating'],
  ['num_ratings', 'numRatings'],
]);

type Predicate = (id: number) => boolean;

/** The tags a filter requires outright (itself, or children of its top AND), and what else it asks. */
function requiredTags(node: FilterNode): { tags: string[]; rest: FilterNode | null } {
  const tagOf = (n: FilterNode) =>
    n.kind === 'match' && n.field.kind === 'field' && n.field.def.name === 'tag' && n.value.type === 'string'
      ? n.value.value.toLowerCase()
      : undefined;
  const one = tagOf(node);
  if (one !== undefined) return { tags: [one], rest: null };
  if (node.kind !== 'and') return { tags: [], rest: node };
  const tags: string[] = [];
  const others: FilterNode[] = [];
  for (const child of node.children) {
    const tag = tagOf(child);
    if (tag === undefined) others.push(child);
    else tags.push(tag);
  }
  const rest =
    others.length === 0 ? null : others.length === 1 ? others[0] : { kind: 'and' as const, children: others };
  return { tags, rest };
}

/** Per-sound columns are numbers; a range on a missing value (NaN) never holds, as SQL's NULL. */
function compileFilter(index: PostingIndexData, node: FilterNode): Predicate {
  const c = index.columns;
  switch (node.kind) {
    case 'and': {
      const parts = node.children.map((n) => compileFilter(index, n));
      return (id) => parts.every((p) => p(id));
    }
    case 'or': {
      const parts = node.children.map((n) => compileFilter(index, n));
      return (id) => parts.some((p) => p(id));
    }
    case 'not': {
      const inner = compileFilter(index, node.child);
      return (id) => !inner(id);
    }
    case 'all':
      return () => true;
    case 'match': {
      const value = node.value.type === 'string' ? node.value.value.toLowerCase() : '';
      const name = node.field.kind === 'field' ? node.field.def.name : '';
      if (name === 'tag') {
        const ids = tagIds(index, value);
        const member = new Uint8Array(c.present.length);
        for (const id of ids) member[id] = 1;
        return (id) => member[id] === 1;
      }
      const code = index.keywords.indexOf(value);
      const column = name === 'license' ? c.license : c.type;
      return (id) => code >= 0 && column[id] === code;
    }
    case 'range': {
      const name = node.field.kind === 'field' ? node.field.def.name : '';
      const column = c[RANGE_COLUMNS.get(name) as keyof SoundColumns] as ArrayLike<number>;
      const lo = node.lower ? Number(node.lower.value) : Number.NEGATIVE_INFINITY;
      const hi = node.upper ? Number(node.upper.value) : Number.POSITIVE_INFINITY;
      const loIn = node.lower?.inclusive ?? true;
      const hiIn = node.upper?.inclusive ?? true;
      return (id) => {
        const v = column[id];
        if (Number.isNaN(v)) return false;
        return (loIn ? v >= lo : v > lo) && (hiIn ? v <= hi : v < hi);
      };
    }
    default:
      throw new Error(`filter ${node.kind} is not evaluated by the posting index`);
  }
}

/** A comparison of two matches in the requested order (negative: `a` first). */
type Order = (a: number, b: number) => number;

/**
 * The requested order as a number per match where it can be: `sign * column[id]` ascending orders
 * the matches as `order` does, except between equal numbers (and NaN), which `order` decides. The
 * selections below compare these numbers in their loops and call `order` only on a tie, not once
 * per match through a closure.
 */
interface Ordering {
  readonly order: Order;
  /** null: every match ties (the order is the ids'). */
  readonly column: ArrayLike<number> | null;
  readonly sign: 1 | -1;
  /** Whether equal numbers are ordered by id alone (not so for the rating, whose ties go to its count first). */
  readonly tiesById: boolean;
}

function orderingOf(sort: PreparedSearch['sort'], c: SoundColumns, score: Float64Array | null): Ordering {
  const byId = (a: number, b: number) => a - b;
  const desc = (column: ArrayLike<number>): Ordering => ({
    order: (a, b) => column[b] - column[a] || a - b,
    column,
    sign: -1,
    tiesById: true,
  });
  const asc = (column: ArrayLike<number>): Ordering => ({
    order: (a, b) => column[a] - column[b] || a - b,
    column,
    sign: 1,
    tiesById: true,
  });
  switch (sort) {
    case 'score':
      return score ? desc(score) : { order: byId, column: null, sign: 1, tiesById: true };
    case 'duration_desc':
      return desc(c.duration);
    case 'duration_asc':
      return asc(c.duration);
    case 'created_desc':
      return desc(c.created);
    case 'created_asc':
      return asc(c.created);
    case 'downloads_desc':
      return desc(c.downloads);
    case 'downloads_asc':
      return asc(c.downloads);
    case 'rating_desc':
      return {
        order: (a, b) => c.rating[b] - c.rating[a] || c.numRatings[b] - c.numRatings[a] || a - b,
        column: c.rating,
        sign: -1,
        tiesById: false,
      };
    case 'rating_asc':
      return {
        order: (a, b) => c.rating[a] - c.rating[b] || c.numRatings[b] - c.numRatings[a] || a - b,
        column: c.rating,
        sign: 1,
        tiesById: false,
      };
  }
}

/** Whether `a` comes before `b` in `ordering` (its number first, `order` on a tie). */
function before(ordering: Ordering, a: number, b: number): boolean {
  const { column, sign } = ordering;
  if (column) {
    const ka = sign * column[a];
    const kb = sign * column[b];
    if (ka < kb) return true;
    if (ka > kb) return false;
  }
  return ordering.order(a, b) < 0;
}

/** The first `k` of `items` in `order` (a bounded binary heap: O(n log k)). */
export function topK(items: ArrayLike<number>, k: number, order: Order): number[] {
  return topKBy(items, k, { order, column: null, sign: 1, tiesById: false });
}

/**
 * topK in an Ordering: the heap keeps each item's number beside it, and most items are turned away
 * by one comparison. Items that ascend (the matches) in an order whose ties go by id need no call
 * of `order` at all: an item tied with the worst kept one comes after it.
 */
function topKBy(items: ArrayLike<number>, k: number, ordering: Ordering, ascending = false): number[] {
  if (k <= 0) return [];
  const { order, column, sign } = ordering;
  const tieLoses = ascending && ordering.tiesById;
  // Max-heap: the root is the worst kept item.
  const heap: number[] = [];
  const keys: number[] = [];
  const byId = ordering.tiesById;
  const worse = (i: number, j: number) =>
    keys[i] > keys[j] || (!(keys[i] < keys[j]) && (byId ? heap[i] > heap[j] : order(heap[i], heap[j]) > 0));
  const swap = (i: number, j: number) => {
    [heap[i], heap[j]] = [heap[j], heap[i]];
    [keys[i], keys[j]] = [keys[j], keys[i]];
  };
  const up = (i: number) => {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!worse(i, p)) break;
      swap(i, p);
      i = p;
    }
  };
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && worse(l, m)) m = l;
      if (r < heap.length && worse(r, m)) m = r;
      if (m === i) return;
      swap(i, m);
      i = m;
    }
  };
  for (let i = 0; i < items.length; i++) {
    const v = items[i];
    const key = column ? sign * column[v] : 0;
    if (heap.length < k) {
      heap.push(v);
      keys.push(key);
      up(heap.length - 1);
    } else if (key < keys[0] || (!(key > keys[0]) && !tieLoses && order(v, heap[0]) < 0)) {
      heap[0] = v;
      keys[0] = key;
      down(0);
    }
  }
  return heap.sort(order);
}

/**
 * Whether the index answers this search: required words and phrases only (no exclusion, no word
 * that is a number, which also matches an id), default weights, a filter of `supportsFilter`. A
 * phrase that PostgreSQL turns into more than a chain of lexemes still goes to PostgreSQL
 * (postingSearch finds out when it has its lexemes).
 */
export function postingIndexAnswers(search: PreparedSearch): boolean {
  const w = search.weights;
  const defaults =
    w.id === 4 && w.tag === 4 && w.description === 3 && w.username === 1 && w.pack === 2 && w.name === 2;
  const clauses = search.query.clauses;
  return (
    defaults &&
    !search.sortTarget &&
    clauses.length > 0 &&
    clauses.every((c) => c.occur === 'must' && (c.phrase || !/^\d+$/.test(c.text))) &&
    supportsFilter(search.filter)
  );
}

/**
 * Answers a search the index supports (postingIndexAnswers), given the lexemes of its clauses
 * (each word's plainto_tsquery, each phrase's phraseto_tsquery: all of a clause's lexemes are
 * required) and the phrases among them of two lexemes or more, whose positions must line up too. A
 * clause without lexemes (stopwords only) is left out, as PostgreSQL's `&&` leaves out an empty
 * tsquery; when every clause is without, nothing matches (an empty tsquery matches nothing).
 */
export function searchPostingIndex(
  index: PostingIndexData,
  search: PreparedSearch,
  clauseLexemes: readonly (readonly string[])[],
  phrases: readonly PhraseChain[] = [],
): PostingAnswer {
  const lexemes = [...new Set(clauseLexemes.flat())];
  const empty = lexemes.length === 0;
  const overlay = index.overlay;
  const baseLists = lexemes.map((l) => index.lexemes.get(l));
  const overlayLists = lexemes.map((l) => overlay?.lexeme(l));
  if (
    lexemes.length === 1 &&
    !empty &&
    !phrases.length &&
    search.sort === 'score' &&
    !search.filter &&
    !search.groupByPack
  ) {
    // A faceted search counts over every match, but its page needs no more than the plain one's.
    const page = oneWordPage(index, search, baseLists[0], overlayLists[0]);
    if (page && !search.facets) return page;
    if (page)
      return {
        ...page,
        matches: mergeDisjoint(
          unmasked(baseLists[0]?.ids ?? NO_IDS, overlay),
          overlayLists[0]?.ids ?? NO_IDS,
        ),
      };
  }
  // The base lists' matches (minus the changed documents) and the changed documents' matches.
  // Two words ranked by their summed scores, nothing changed and nothing to filter: the sums are
  // added while the lists are intersected, instead of in a pass over each list afterwards.
  const summed =
    lexemes.length === 2 &&
    search.sort === 'score' &&
    !search.filter &&
    !phrases.length &&
    baseLists[0] !== undefined &&
    baseLists[1] !== undefined &&
    (overlay === undefined || overlay.maskedIds().length === 0) &&
    overlayLists.every((l) => l === undefined);
  const baseMatches = summed
    ? intersectSummed(baseLists[0] as PostingList, baseLists[1] as PostingList, scratchOf(index).score)
    : empty || baseLists.some((l) => !l)
      ? NO_IDS
      : unmasked(intersect(baseLists.map((l) => (l as PostingList).ids)), overlay);
  const overlayMatches =
    empty || overlayLists.some((l) => !l)
      ? NO_IDS
      : intersect(overlayLists.map((l) => (l as PostingList).ids));
  let matches = mergeDisjoint(baseMatches, overlayMatches);
  const lists: Scored = { base: baseLists, overlay: overlayLists, masked: overlay?.masked };
  // Made when a phrase or the rank of several lexemes needs the matches' positions (not for one word).
  let reader: DocumentPositions | undefined;
  const positions = () => {
    reader ??= new DocumentPositions(lexemes, lists);
    return reader;
  };
  if (search.filter) {
    // Required tags are lists like the words' (intersected, galloping); the rest is read per match.
    const { tags, rest } = requiredTags(search.filter);
    if (tags.length && matches.length) matches = intersect([matches, ...tags.map((t) => tagIds(index, t))]);
    if (rest) {
      const keep = compileFilter(index, rest);
      let n = 0;
      const out = new Uint32Array(matches.length);
      for (const id of matches) if (keep(id)) out[n++] = id;
      matches = out.subarray(0, n);
    }
  }
  // The phrases last: their check reads each remaining match's positions.
  if (phrases.length && matches.length) matches = positions().withPhrases(matches, phrases);
  const facets = search.facets ? { matches } : {};
  const c = index.columns;
  const ranked = search.sort === 'score';
  const single = lexemes.length === 1 && !empty;
  const several = !single && !empty && matches.length > 0;
  const ranker = several ? positions() : undefined;
  // Scores: exact for one lexeme, and for several when every match is ranked exactly; above
  // RERANK_ALL matches, the sum of each one's own score (the order the candidates are taken in).
  let score: Float64Array | null = null;
  const exact = single || (several && matches.length <= RERANK_ALL);
  if (ranked && !empty && matches.length) {
    score = scratchOf(index).score;
    if (ranker && exact) ranker.rankInto(matches, score);
    else if (!summed) addOwnScores(score, matches, lists);
  }
  const ordering = orderingOf(search.sort, c, score);
  const end = search.offset + search.limit;
  const scoresOf = (page: number[]): number[] => {
    if (score && exact) return page.map((id) => score[id]);
    if (ranker) return ranker.ranksOf(page);
    return page.map((id) => {
      const list = lists.masked?.[id] === 1 ? lists.overlay[0] : lists.base[0];
      return list ? scoreIn(list, id) : 0;
    });
  };
  try {
    if (search.groupByPack)
      return {
        ...grouped(index, search, matches, ordering, scoresOf),
        ...(ranked && !exact ? { approximate: true } : {}),
        ...facets,
      };
    if (ranked && !exact && score) {
      // The best by the summed scores, ranked exactly; the page is their best.
      const pool = Uint32Array.from(topKBy(matches, Math.max(RERANK_POOL, end), ordering, true)).sort();
      (ranker as DocumentPositions).rankInto(pool, score);
      const page = topKBy(pool, end, ordering, true).slice(search.offset);
      return { count: matches.length, ids: page, scores: scoresOf(page), approximate: true, ...facets };
    }
    const page = topKBy(matches, end, ordering, true).slice(search.offset);
    return { count: matches.length, ids: page, scores: scoresOf(page), ...facets };
  } finally {
    // The scratch scores are zero between searches (a search runs to its end: nothing awaits here).
    if (score) for (const id of matches) score[id] = 0;
  }
}

/** A long list keeps its first postings in relevance order: pages this deep of one word read only them. */
const BEST_FIRST = 1024;
const BEST_FIRST_FROM = 4096;
const bestFirstOf = new WeakMap<PostingList, Uint32Array>();

/** The places in `list` of its first BEST_FIRST postings by score (descending), ties by id. */
function bestFirst(list: PostingList): Uint32Array {
  let best = bestFirstOf.get(list);
  if (!best) {
    const { ids, scores } = list;
    const places = new Uint32Array(ids.length);
    for (let i = 0; i < places.length; i++) places[i] = i;
    best = Uint32Array.from(topK(places, BEST_FIRST, (a, b) => scores[b] - scores[a] || ids[a] - ids[b]));
    bestFirstOf.set(list, best);
  }
  return best;
}

/**
 * The relevance page of one word with no filter, from its list's best postings (those of changed
 * documents skipped) and the overlay's postings of it; undefined when the list is short (the scan
 * costs little), the page lies deeper, or too many of the best have changed.
 */
function oneWordPage(
  index: PostingIndexData,
  search: PreparedSearch,
  list: PostingList | undefined,
  changed: PostingList | undefined,
): PostingAnswer | undefined {
  const end = search.offset + search.limit;
  if (!list || list.ids.length < BEST_FIRST_FROM || end > BEST_FIRST) return undefined;
  const masked = index.overlay?.masked;
  const best = bestFirst(list);
  const ids: number[] = [];
  const scores: number[] = [];
  for (let i = 0; i < best.length && ids.length < end; i++) {
    const id = list.ids[best[i]];
    if (masked?.[id] === 1) continue;
    ids.push(id);
    scores.push(list.scores[best[i]]);
  }
  if (ids.length < end) return undefined;
  if (changed)
    for (let i = 0; i < changed.ids.length; i++) {
      ids.push(changed.ids[i]);
      scores.push(changed.scores[i]);
    }
  const page = ids
    .map((_, i) => i)
    .sort((a, b) => scores[b] - scores[a] || ids[a] - ids[b])
    .slice(search.offset, end);
  const maskedIds = index.overlay?.maskedIds() ?? NO_IDS;
  const maskedInList = maskedIds.length ? intersect([maskedIds, list.ids]).length : 0;
  return {
    count: list.ids.length - maskedInList + (changed?.ids.length ?? 0),
    ids: page.map((i) => ids[i]),
    scores: page.map((i) => scores[i]),
  };
}

/**
 * The ids both lists hold, ascending, with `score[id]` set to the sum of the two lists' scores
 * there (`a`'s first, as addOwnScores adds them). Merged or galloped as intersectTwo.
 */
function intersectSummed(a: PostingList, b: PostingList, score: Float64Array): Uint32Array {
  const [short, long] = a.ids.length <= b.ids.length ? [a, b] : [b, a];
  const out = new Uint32Array(short.ids.length);
  let n = 0;
  const add = (id: number, i: number, j: number) => {
    // i in `short`, j in `long`: back in the lexemes' order for the sum.
    score[id] = short === a ? a.scores[i] + b.scores[j] : a.scores[j] + b.scores[i];
    out[n++] = id;
  };
  const s = short.ids;
  const l = long.ids;
  if (l.length < s.length * MERGE_RATIO) {
    let i = 0;
    let j = 0;
    while (i < s.length && j < l.length) {
      const x = s[i];
      const y = l[j];
      if (x === y) add(x, i++, j++);
      else if (x < y) i++;
      else j++;
    }
  } else {
    let lo = 0;
    for (let i = 0; i < s.length; i++) {
      lo = seek(l, s[i], lo);
      if (lo >= l.length) break;
      if (l[lo] === s[i]) add(s[i], i, lo);
    }
  }
  return out.subarray(0, n);
}

/** Adds each lexeme's own score of every match (the order a large several-word relevance page is taken in). */
function addOwnScores(score: Float64Array, matches: Uint32Array, lists: Scored): void {
  const masked = lists.masked;
  for (const [k, list] of lists.base.entries()) {
    // Both lists ascend: one pass adds the list's scores of the matches, merging or galloping as intersectTwo.
    let j = 0;
    const gallop = list !== undefined && list.ids.length >= matches.length * MERGE_RATIO;
    if (list && list.ids === matches) {
      // One word's own list, whole: its scores in the same places.
      for (let i = 0; i < matches.length; i++) score[matches[i]] += list.scores[i];
    } else if (list)
      for (const id of matches) {
        if (masked && masked[id] === 1) continue;
        if (gallop) j = seek(list.ids, id, j);
        else while (list.ids[j] < id) j++;
        score[id] += list.scores[j];
      }
    const changed = lists.overlay[k];
    if (changed) for (const id of matches) if (masked && masked[id] === 1) score[id] += scoreIn(changed, id);
  }
}

/** The first index of ascending `ids` at or after `from` whose id is at least `v`: galloping, then a binary search inside the last step. */
function seek(ids: Uint32Array, v: number, from: number): number {
  let lo = from;
  let step = 1;
  let hi = lo;
  while (hi < ids.length && ids[hi] < v) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  if (hi > ids.length) hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ids[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The positions of a search's lexemes in the documents that hold them all, read from the lists
 * (multi-lexeme-rank.ts): each document's from its base list, or from the overlay's when it
 * changed since the lists were built. They give the ts_rank of several lexemes and decide phrases.
 */
class DocumentPositions {
  /** Each lexeme's slot (its place in rankOrder), by its place in the search's lexemes. */
  private readonly slots: number[];
  private readonly slotOf: Map<string, number>;
  private readonly scratch: RankScratch;

  constructor(
    lexemes: readonly string[],
    private readonly lists: Scored,
  ) {
    const ordered = rankOrder(lexemes);
    this.slots = lexemes.map((l) => ordered.indexOf(l));
    this.slotOf = new Map(ordered.map((l, i) => [l, i]));
    this.scratch = new RankScratch(lexemes.length, DEFAULT_CLASS_WEIGHTS);
  }

  /** The ids of `ids` (ascending) whose document holds every phrase. */
  withPhrases(ids: Uint32Array, phrases: readonly PhraseChain[]): Uint32Array {
    const chains = phrases.map((p) => ({
      slots: p.lexemes.map((l) => this.slotOf.get(l) as number),
      distances: p.distances,
    }));
    const at = new Int32Array(this.lists.base.length);
    const out = new Uint32Array(ids.length);
    let n = 0;
    for (const id of ids) {
      this.load(id, at);
      if (chains.every((c) => this.scratch.phrase(c.slots, c.distances))) out[n++] = id;
    }
    return out.subarray(0, n);
  }

  /** Writes the rank of each of `ids` (ascending) into `out[id]`. */
  rankInto(ids: ArrayLike<number>, out: Float64Array): void {
    // Ascending ids: each base list is searched on from where the previous id was found.
    const at = new Int32Array(this.lists.base.length);
    for (let i = 0; i < ids.length; i++) out[ids[i]] = this.rankOf(ids[i], at);
  }

  /** The ranks of a page's ids, in its order. */
  ranksOf(page: readonly number[]): number[] {
    return page.map((id) => this.rankOf(id, undefined));
  }

  /** The rank of one document; `at` as in `load`. */
  private rankOf(id: number, at: Int32Array | undefined): number {
    this.load(id, at);
    return this.scratch.rank();
  }

  /** Loads one document's positions; `at` holds where each base list's search starts and is moved on. */
  private load(id: number, at: Int32Array | undefined): void {
    const { base, overlay, masked } = this.lists;
    const changed = masked?.[id] === 1;
    for (let k = 0; k < base.length; k++) {
      const list = (changed ? overlay[k] : base[k]) as PostingList;
      const j = seek(list.ids, id, changed || !at ? 0 : at[k]);
      if (at && !changed) at[k] = j;
      this.scratch.load(this.slots[k], list.positions, j);
    }
  }
}

/** Per-index work arrays, reset after each search: a search touches its matches only, not every sound. */
interface Scratch {
  readonly score: Float64Array;
  readonly best: Int32Array;
  readonly inPack: Uint32Array;
}
const scratches = new WeakMap<PostingIndexData, Scratch>();

function scratchOf(index: PostingIndexData): Scratch {
  let s = scratches.get(index);
  if (!s) {
    s = {
      score: new Float64Array(index.columns.present.length),
      best: new Int32Array(index.maxPackId + 1).fill(-1),
      inPack: new Uint32Array(index.maxPackId + 1),
    };
    scratches.set(index, s);
  }
  return s;
}

/** The lists of a search's lexemes, in the base and in the overlay (same order). */
interface Scored {
  readonly base: (PostingList | undefined)[];
  readonly overlay: (PostingList | undefined)[];
  readonly masked: Uint8Array | undefined;
}

/** group_by_pack: one sound per pack (the best in the order), pack-less sounds alone. */
function grouped(
  index: PostingIndexData,
  search: PreparedSearch,
  matches: Uint32Array,
  ordering: Ordering,
  scoresOf: (page: number[]) => number[],
): PostingAnswer {
  const c = index.columns;
  const { best, inPack } = scratchOf(index);
  const representatives: number[] = [];
  const packs: number[] = [];
  for (const id of matches) {
    const pack = c.packId[id];
    if (pack === 0) {
      representatives.push(id);
      continue;
    }
    inPack[pack]++;
    if (best[pack] < 0) {
      best[pack] = id;
      packs.push(pack);
    } else if (before(ordering, id, best[pack])) best[pack] = id;
  }
  for (const pack of packs) representatives.push(best[pack]);
  const page = topKBy(representatives, search.offset + search.limit, ordering).slice(search.offset);
  const packGroups = page.map((id) =>
    c.packId[id] ? { packId: c.packId[id], count: inPack[c.packId[id]] } : null,
  );
  for (const pack of packs) {
    best[pack] = -1;
    inPack[pack] = 0;
  }
  return {
    count: representatives.length,
    ids: page,
    scores: scoresOf(page),
    packGroups,
  };
}
