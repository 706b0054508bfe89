// The realistic request mix of the API benchmark of record (issues 18 and 33): requests drawn the
// way real traffic arrives, not the same few repeated. Sound ids uniform over the catalogue; text
// queries of 1–3 of the catalogue's own words (Zipf by their frequency rank), at least 10,000
// distinct ones asked with a Zipf distribution (s = 1) over them: a quarter with a filter and a
// non-default sort, a tenth grouped by pack, 5% phrases, the rest plain; similar-sound and
// combined-search targets uniform. Seeded: the same run asks the same requests.

import { zipf } from '@earshot/catalogue/testing';
import pg from 'pg';

/** Mulberry32: small, seedable, good enough to draw a workload. */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Draws ranks 0..n-1 with P(k) ∝ 1/(k+1)^s: the synthetic catalogue's own sampler. */
export const zipfSampler = zipf;

/**
 * Filters a quarter of the text queries carry, one of each kind people filter on: a tag (drawn
 * like the words, Zipf over the catalogue's tags), a duration range, a license, a type, a
 * descriptor range (`bpm`, what `ac_tempo` names).
 */
const FILTER_KINDS: ReadonlyArray<(tag: string, random: () => number) => string> = [
  (tag) => `tag:${tag}`,
  (_, random) => (random() < 0.5 ? 'duration:[0 TO 5]' : 'duration:[10 TO 60]'),
  (_, random) => (random() < 0.5 ? 'license:"Creative Commons 0"' : 'license:"Attribution"'),
  (_, random) => (random() < 0.5 ? 'type:wav' : 'type:mp3'),
  (_, random) => {
    const low = 60 + 10 * Math.floor(random() * 10);
    return `bpm:[${low} TO ${low + 20}]`;
  },
];
/** The filters of the combined searches (uniform). */
const FILTERS = [
  'license:"Creative Commons 0"',
  'license:"Attribution"',
  'duration:[0 TO 5]',
  'duration:[10 TO 60]',
  'type:wav',
  'samplerate:44100',
  'channels:2',
  'avg_rating:[3 TO 5]',
  'num_downloads:[10 TO *]',
];
/** The non-default orders a filtered query asks for. */
const SORTS = ['created_desc', 'downloads_desc', 'rating_desc', 'duration_asc', 'duration_desc'];

export interface TextSearch {
  query: string;
  filter?: string;
  sort?: string;
  groupByPack?: boolean;
  page?: number;
  /** Absent: the API's default (15). */
  pageSize?: number;
}

/**
 * The catalogue's own words, most frequent first: its tags and the words of its sound names and
 * descriptions, from a sample of at most 100,000 sounds (enough to rank the vocabulary, cheap at a
 * million), and its tags alone the same way: what people search for and filter on.
 */
export async function catalogueVocabulary(dbUrl: string): Promise<{ words: string[]; tags: string[] }> {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    const ranked = async (words: string) =>
      (
        await client.query<{ w: string }>(`
          with sample as (select name, tags, description from sounds order by id limit 100000),
          words as (${words})
          select w from words where length(w) >= 3 and w !~ '^[0-9]+$'
          group by w order by count(*) desc, w limit 20000`)
      ).rows.map((r) => r.w);
    const words = await ranked(`
      select unnest(tags) as w from sample
      union all select regexp_split_to_table(lower(name), '[^a-z0-9]+') from sample
      union all select regexp_split_to_table(lower(description), '[^a-z0-9]+') from sample`);
    const stopwords = new Set(STOPWORDS);
    return {
      words: words.filter((w) => !stopwords.has(w)),
      tags: await ranked('select unnest(tags) as w from sample'),
    };
  } finally {
    await client.end();
  }
}

/** English stopwords a search box user does not type alone (they match nothing: the parser drops them). */
const STOPWORDS = ['the', 'and', 'with', 'for', 'from', 'this', 'that', 'was'];

/**
 * At least `distinct` distinct text searches of 1–3 words. Words are drawn by their own frequency
 * rank (Zipf s = 1), so popular words make up more queries, as in real search logs. A quarter of
 * the searches carry a filter and a non-default sort, a tenth ask for group_by_pack, 5% are quoted
 * phrases of 2–3 words, the rest are plain. The list is in the
 * order the searches were first made, which puts the common-word searches early: that order is the
 * popularity rank the request stream draws from.
 */
export function textSearches(
  vocabulary: string[],
  distinct: number,
  random: () => number,
  tags: string[] = vocabulary,
): TextSearch[] {
  if (vocabulary.length < 20) throw new Error(`a vocabulary of ${vocabulary.length} words is too small`);
  const word = zipfSampler(vocabulary.length, 1, random);
  const tag = zipfSampler(tags.length, 1, random);
  const seen = new Set<string>();
  const out: TextSearch[] = [];
  for (let attempts = 0; out.length < distinct && attempts < distinct * 50; attempts++) {
    // The kind by place in the log, so the shares are exact in it: of every 20, 5 filtered, 2
    // grouped, 1 phrase (the most asked search is plain). A Zipf stream over the log holds 67%
    // plain, 21% filtered, 8% grouped and 4% phrase requests.
    const slot = out.length % 20;
    const filtered = slot % 4 === 3;
    const grouped = slot === 9 || slot === 18;
    const phrase = slot === 13;
    const u = random();
    const words = phrase ? (u < 0.7 ? 2 : 3) : u < 0.4 ? 1 : u < 0.8 ? 2 : 3;
    const parts = new Set<string>();
    let commonest = Number.POSITIVE_INFINITY;
    while (parts.size < words) {
      const rank = word();
      commonest = Math.min(commonest, rank);
      parts.add(vocabulary[rank]);
    }
    const text = [...parts].join(' ');
    const search: TextSearch = { query: phrase ? `"${text}"` : text };
    if (filtered) {
      search.filter = FILTER_KINDS[Math.floor(random() * FILTER_KINDS.length)](tags[tag()], random);
      search.sort = SORTS[Math.floor(random() * SORTS.length)];
    } else if (grouped) search.groupByPack = true;
    // Later pages only of one common word: a page past a narrow query's end is a 404 by contract,
    // and a client pages on only when the first page was full.
    if (words === 1 && !search.filter && !search.groupByPack && commonest < 200 && random() < 0.3)
      search.page = 2 + Math.floor(random() * 2);
    const key = JSON.stringify(search);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(search);
  }
  if (out.length < distinct) throw new Error(`only ${out.length} distinct searches could be made`);
  return out;
}

/** The log of record: `distinct` searches of the catalogue at `dbUrl` (its words and tags). */
export async function realisticSearches(
  dbUrl: string,
  distinct: number,
  random: () => number,
): Promise<TextSearch[]> {
  const { words, tags } = await catalogueVocabulary(dbUrl);
  return textSearches(words, distinct, random, tags);
}

/**
 * The benchmarks' query log of record, drawn from `seed`: its 10,000 distinct searches and the
 * 200,000 requests of its Zipf stream over them, with the generator left where they left it (a
 * bench that draws more of its requests goes on from there).
 */
export async function queryLog(
  dbUrl: string,
  seed = 18,
): Promise<{ distinct: TextSearch[]; stream: TextSearch[]; random: () => number }> {
  const random = seededRandom(seed);
  const distinct = await realisticSearches(dbUrl, 10_000, random);
  return { distinct, stream: searchStream(distinct, 200_000, random), random };
}

/** A drawn text search as the catalogue's search request (15 a page). */
export function searchRequest(q: TextSearch) {
  return {
    query: q.query,
    filter: q.filter,
    sort: q.sort,
    groupByPack: q.groupByPack,
    limit: 15,
    offset: ((q.page ?? 1) - 1) * 15,
  };
}

/** A drawn text search as the API's query parameters. */
export function searchParams(q: TextSearch): Record<string, string> {
  const out: Record<string, string> = { query: q.query };
  if (q.filter) out.filter = q.filter;
  if (q.sort) out.sort = q.sort;
  if (q.groupByPack) out.group_by_pack = '1';
  if (q.page) out.page = String(q.page);
  if (q.pageSize) out.page_size = String(q.pageSize);
  return out;
}

/** The first `count` distinct searches of a stream, in the order it first asks them. */
export function firstAsked(stream: readonly TextSearch[], count: number): TextSearch[] {
  const seen = new Set<TextSearch>();
  for (const q of stream) {
    if (seen.size >= count) break;
    seen.add(q);
  }
  return [...seen];
}

/** `count` requests drawn from `searches` with Zipf (s = 1) over their rank. */
export function searchStream(searches: TextSearch[], count: number, random: () => number): TextSearch[] {
  const rank = zipfSampler(searches.length, 1, random);
  return Array.from({ length: count }, () => searches[rank()]);
}

/** `count` sound ids uniform over 1..sounds. */
export function uniformIds(sounds: number, count: number, random: () => number): number[] {
  return Array.from({ length: count }, () => 1 + Math.floor(random() * sounds));
}

/** Combined searches: a uniform target over the descriptor's range, one of the filters. */
export function combinedSearches(count: number, random: () => number): Record<string, string>[] {
  return Array.from({ length: count }, () => ({
    target: `lowlevel.spectral_centroid.mean:${(random() * 8000).toFixed(1)}`,
    filter: FILTERS[Math.floor(random() * FILTERS.length)],
    fields: 'id,name,score',
  }));
}

/** The distinct share and the most common request's share of a stream (printed beside the rows). */
export function streamShape<T>(stream: T[]): { distinct: number; topShare: number } {
  const counts = new Map<string, number>();
  for (const item of stream) {
    const key = JSON.stringify(item);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return { distinct: counts.size, topShare: Math.max(...counts.values()) / stream.length };
}

/** A drawn text search as the API's request path (`/apiv2/search/?query=…`). */
export function searchPath(q: TextSearch): string {
  const params = new URLSearchParams({ query: q.query });
  if (q.filter) params.set('filter', q.filter);
  if (q.sort) params.set('sort', q.sort);
  if (q.groupByPack) params.set('group_by_pack', '1');
  if (q.page) params.set('page', String(q.page));
  return `/apiv2/search/?${params}`;
}
