// The realistic request mix of the API benchmark of record (issue 18): requests drawn the way real
// traffic arrives, not the same few repeated. Sound ids uniform over the catalogue; text queries
// made of the catalogue's own words (1–3 words), at least 10,000 distinct strings, asked with a
// Zipf distribution (s = 1) over them, a quarter of them with a filter and a sort; similar-sound
// and combined-search targets uniform. Seeded: the same run asks the same requests.

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

/** Filters and sorts a quarter of the text queries carry: fields people filter on, values that exist. */
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
const SORTS = ['created_desc', 'downloads_desc', 'rating_desc', 'duration_asc', 'duration_desc'];

export interface TextSearch {
  query: string;
  filter?: string;
  sort?: string;
  page?: number;
}

/**
 * The catalogue's own words, most frequent first: its tags and the words of its sound names, from a
 * sample of at most 50,000 sounds (enough to rank the vocabulary, cheap at a million).
 */
export async function catalogueVocabulary(dbUrl: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ w: string }>(`
      with sample as (select name, tags from sounds order by id limit 50000),
      words as (
        select unnest(tags) as w from sample
        union all
        select regexp_split_to_table(lower(name), '[^a-z0-9]+') from sample)
      select w from words where length(w) >= 3 and w !~ '^[0-9]+$'
      group by w order by count(*) desc, w limit 5000`);
    return rows.map((r) => r.w);
  } finally {
    await client.end();
  }
}

/**
 * At least `distinct` distinct text searches of 1–3 words. Words are drawn by their own frequency
 * rank (Zipf), so popular words make up more queries, as in real search logs; the list is in the
 * order the searches were first made, which puts the common-word searches early: that order is the
 * popularity rank the request stream draws from.
 */
export function textSearches(vocabulary: string[], distinct: number, random: () => number): TextSearch[] {
  if (vocabulary.length < 20) throw new Error(`a vocabulary of ${vocabulary.length} words is too small`);
  const word = zipfSampler(vocabulary.length, 1, random);
  const seen = new Set<string>();
  const out: TextSearch[] = [];
  for (let attempts = 0; out.length < distinct && attempts < distinct * 50; attempts++) {
    const u = random();
    const words = u < 0.4 ? 1 : u < 0.8 ? 2 : 3;
    const parts = new Set<string>();
    let commonest = Number.POSITIVE_INFINITY;
    while (parts.size < words) {
      const rank = word();
      commonest = Math.min(commonest, rank);
      parts.add(vocabulary[rank]);
    }
    const search: TextSearch = { query: [...parts].join(' ') };
    if (out.length % 4 === 3) {
      search.filter = FILTERS[Math.floor(random() * FILTERS.length)];
      search.sort = SORTS[Math.floor(random() * SORTS.length)];
    }
    // Later pages only of one common word: a page past a narrow query's end is a 404 by contract,
    // and a client pages on only when the first page was full.
    if (words === 1 && !search.filter && commonest < 200 && random() < 0.3)
      search.page = 2 + Math.floor(random() * 2);
    const key = JSON.stringify(search);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(search);
  }
  if (out.length < distinct) throw new Error(`only ${out.length} distinct searches could be made`);
  return out;
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
  if (q.page) params.set('page', String(q.page));
  return `/apiv2/search/?${params}`;
}
