import { type Kysely, sql } from 'kysely';
import { encodePositions } from './multi-lexeme-rank.ts';
import {
  FACET_COLUMNS,
  type FacetColumn,
  type PostingIndexData,
  type PostingList,
  type SoundColumns,
  singleLexemeRank,
} from './posting-index.ts';
import { SEARCH_TABLE } from './search-schema.ts';

/** Sounds read per statement while loading. */
const BATCH = 25_000;

/** Appends (key, id, score, positions) postings into growing typed arrays, then groups them by key. */
class PostingsBuilder {
  private keys = new Uint32Array(1 << 20);
  private ids = new Uint32Array(1 << 20);
  private scores = new Float32Array(1 << 20);
  private firsts = new Uint32Array(1 << 20);
  private readonly more = new GrowingUint16();
  private n = 0;
  readonly names = new Map<string, number>();

  /** Adds a posting (its positions as readTsvector gives them); returns the name's key (its place in the built map). */
  add(name: string, id: number, score: number, positions: readonly number[], bare: boolean): number {
    let key = this.names.get(name);
    if (key === undefined) {
      key = this.names.size;
      this.names.set(name, key);
    }
    if (this.n === this.keys.length) this.grow();
    this.keys[this.n] = key;
    this.ids[this.n] = id;
    this.scores[this.n] = score;
    this.firsts[this.n] = encodePositions(positions, bare, this.more);
    this.n++;
    return key;
  }

  private grow(): void {
    const size = this.keys.length * 2;
    const grown = <T extends Uint32Array | Float32Array>(a: T, Type: { new (n: number): T }): T => {
      const b = new Type(size);
      b.set(a);
      return b;
    };
    this.keys = grown(this.keys, Uint32Array);
    this.ids = grown(this.ids, Uint32Array);
    this.scores = grown(this.scores, Float32Array);
    this.firsts = grown(this.firsts, Uint32Array);
  }

  /** Each name's postings in the order they were added (ascending when added by ascending id). */
  build(): Map<string, PostingList> {
    const counts = new Uint32Array(this.names.size + 1);
    for (let i = 0; i < this.n; i++) counts[this.keys[i] + 1]++;
    for (let k = 1; k < counts.length; k++) counts[k] += counts[k - 1];
    const ids = new Uint32Array(this.n);
    const scores = new Float32Array(this.n);
    const firsts = new Uint32Array(this.n);
    const next = counts.slice(0, this.names.size);
    for (let i = 0; i < this.n; i++) {
      const at = next[this.keys[i]]++;
      ids[at] = this.ids[i];
      scores[at] = this.scores[i];
      firsts[at] = this.firsts[i];
    }
    const more = this.more.array();
    const out = new Map<string, PostingList>();
    for (const [name, key] of this.names)
      out.set(name, {
        ids: ids.subarray(counts[key], counts[key + 1]),
        scores: scores.subarray(counts[key], counts[key + 1]),
        positions: { first: firsts.subarray(counts[key], counts[key + 1]), more },
      });
    return out;
  }

  get size(): number {
    return this.n;
  }
}

/** A growing array of 16-bit values: `push` returns the value's index. */
export class GrowingUint16 {
  private values: Uint16Array;
  length = 0;

  constructor(capacity = 1 << 16) {
    this.values = new Uint16Array(capacity);
  }

  push(v: number): number {
    if (this.length === this.values.length) {
      const values = new Uint16Array(this.values.length * 2);
      values.set(this.values);
      this.values = values;
    }
    this.values[this.length] = v;
    return this.length++;
  }

  array(): Uint16Array {
    return this.values.slice(0, this.length);
  }
}

/** A growing list of ids. */
class GrowingIds {
  private ids = new Uint32Array(1 << 16);
  length = 0;

  push(id: number): void {
    if (this.length === this.ids.length) {
      const ids = new Uint32Array(this.ids.length * 2);
      ids.set(this.ids);
      this.ids = ids;
    }
    this.ids[this.length++] = id;
  }

  /** The ids pushed, in an array of their own size. */
  array(): Uint32Array {
    return this.ids.slice(0, this.length);
  }
}

/**
 * Reads a tsvector's text form (`'lexeme':1A,4 'other':2B`) and calls `each` with every lexeme and
 * its positions as PostgreSQL's WordEntryPos (position | weight class code << 14, A = 3 … D = 0),
 * in position order; a lexeme stored without positions (`bare`) gets PostgreSQL's stand-in, the
 * last position with class D. The array is reused between calls.
 */
export function readTsvector(
  text: string,
  each: (lexeme: string, positions: number[], bare: boolean) => void,
): void {
  const positions: number[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (text.charCodeAt(i) === 32) {
      i++;
      continue;
    }
    if (text.charCodeAt(i) !== 39) throw new Error(`unexpected tsvector text at ${i}`);
    // The lexeme runs to the next quote that is not doubled; quotes and backslashes are escaped.
    let close = text.indexOf("'", i + 1);
    while (text.charCodeAt(close + 1) === 39) close = text.indexOf("'", close + 2);
    let lexeme = text.slice(i + 1, close);
    if (lexeme.includes("'") || lexeme.includes('\\'))
      lexeme = lexeme.replace(/''/g, "'").replace(/\\(.)/g, '$1');
    i = close + 1;
    positions.length = 0;
    const bare = text.charCodeAt(i) !== 58;
    if (!bare) {
      i++;
      for (;;) {
        let c = text.charCodeAt(i);
        let position = 0;
        while (c >= 48 && c <= 57) {
          position = position * 10 + (c - 48);
          c = text.charCodeAt(++i);
        }
        // A = 65 → 3, B → 2, C → 1, D (or no letter) → 0.
        let weight = 0;
        if (c >= 65 && c <= 68) {
          weight = 68 - c;
          c = text.charCodeAt(++i);
        }
        positions.push(position | (weight << 14));
        if (c !== 44) break;
        i++;
      }
    } else positions.push(BARE_POSITION);
    each(lexeme, positions, bare);
  }
}

/** A tag's posting has no place in a text: the tag builder stores this one position and drops it. */
const NO_TEXT_POSITION = [0];

/** Where PostgreSQL puts a lexeme stored without positions when it ranks several (MAXENTRYPOS - 1, class D). */
const BARE_POSITION = (1 << 14) - 1;

/** One visible sound's search document as the index reads it. */
export interface DocumentRow {
  id: number;
  tsv: string;
  tags: string[];
  duration: number;
  created: number;
  num_downloads: number;
  avg_rating: number;
  num_ratings: number;
  license: string;
  type: string;
  pack_id: number | null;
  bpm: number | null;
  category: string | null;
  subcategory: string | null;
  username: string;
  pack_name: string | null;
  samplerate: number | null;
  channels: number | null;
  bitdepth: number | null;
}

/** The documents of the visible sounds in an id range, or of the listed ids, in id order. */
export async function readDocuments(
  db: Kysely<any>,
  which: { from: number; to: number } | { ids: readonly number[] },
): Promise<DocumentRow[]> {
  const where =
    'ids' in which
      ? sql`s.id = any(${which.ids as number[]}::int[])`
      : sql`s.id >= ${which.from} and s.id < ${which.to}`;
  const { rows } = await sql<DocumentRow>`
      select s.id, s.tsv::text as tsv, s.tags, s.duration,
             extract(epoch from s.created)::float8 * 1000 as created,
             s.num_downloads, s.avg_rating, s.num_ratings, lower(s.license) as license, lower(s.type) as type,
             s.pack_id, d.bpm, s.category, s.subcategory, s.username, s.pack_name, s.samplerate, s.channels,
             s.bitdepth
      from ${sql.table(SEARCH_TABLE)} s left join sound_descriptors d on d.sound_id = s.id
      where ${where} order by s.id`.execute(db);
  return rows;
}

/** Empty columns for ids below `size`. */
export function emptyColumns(size: number): SoundColumns {
  return {
    present: new Uint8Array(size),
    duration: new Float64Array(size),
    created: new Float64Array(size),
    downloads: new Int32Array(size),
    rating: new Float64Array(size),
    numRatings: new Int32Array(size),
    license: new Uint16Array(size),
    type: new Uint16Array(size),
    packId: new Int32Array(size),
    bpm: new Float32Array(size).fill(Number.NaN),
    category: new Uint16Array(size),
    subcategory: new Uint16Array(size),
    username: new Uint32Array(size),
    pack: new Uint32Array(size),
    samplerate: new Uint32Array(size),
    channels: new Uint16Array(size),
    bitdepth: new Uint16Array(size),
  };
}

/**
 * The facet columns' values by code, and their codes: a value seen for the first time gets the
 * next code. Code 0 is no value.
 */
export class FacetCodes {
  readonly values: Record<FacetColumn, string[]>;
  private readonly codes = new Map<FacetColumn, Map<string, number>>();

  constructor(values?: Readonly<Record<FacetColumn, readonly string[]>>) {
    this.values = Object.fromEntries(
      FACET_COLUMNS.map((column) => [column, values ? [...values[column]] : ['']]),
    ) as Record<FacetColumn, string[]>;
    for (const column of FACET_COLUMNS)
      this.codes.set(column, new Map(this.values[column].map((v, i) => [v, i])));
  }

  code(column: FacetColumn, value: string | number | null): number {
    if (value === null || value === '') return 0;
    const text = String(value);
    const codes = this.codes.get(column) as Map<string, number>;
    let code = codes.get(text);
    if (code === undefined) {
      code = this.values[column].push(text) - 1;
      codes.set(text, code);
    }
    return code;
  }
}

/** A code in a 16-bit column: a column with more distinct values than it holds fails the build, never miscounts. */
function code16(code: number, column: FacetColumn): number {
  if (code > 0xffff) throw new Error(`search index: more than 65535 distinct values of ${column}`);
  return code;
}

/**
 * Writes a document's filter, sort and facet values into the columns (`keyword` numbers license
 * and type, `facets` the facet values).
 */
export function writeColumns(
  columns: SoundColumns,
  r: DocumentRow,
  keyword: (v: string) => number,
  facets: FacetCodes,
): void {
  const id = r.id;
  columns.present[id] = 1;
  columns.duration[id] = r.duration;
  columns.created[id] = r.created;
  columns.downloads[id] = r.num_downloads;
  columns.rating[id] = r.avg_rating;
  columns.numRatings[id] = r.num_ratings;
  columns.license[id] = keyword(r.license);
  columns.type[id] = keyword(r.type);
  columns.packId[id] = r.pack_id ?? 0;
  columns.bpm[id] = r.bpm ?? Number.NaN;
  columns.category[id] = code16(facets.code('category', r.category), 'category');
  columns.subcategory[id] = code16(facets.code('subcategory', r.subcategory), 'subcategory');
  columns.username[id] = facets.code('username', r.username);
  columns.pack[id] = r.pack_id === null ? 0 : facets.code('pack', `${r.pack_id}_${r.pack_name ?? ''}`);
  columns.samplerate[id] = facets.code('samplerate', r.samplerate);
  columns.channels[id] = code16(facets.code('channels', r.channels), 'channels');
  columns.bitdepth[id] = code16(facets.code('bitdepth', r.bitdepth), 'bitdepth');
}

/** A hash of what a document's postings come from (its tsvector and tags): equal = same postings. */
export function textHash(r: DocumentRow): number {
  let h = 0x811c9dc5;
  const mix = (text: string) => {
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
    h = Math.imul(h ^ 0x1f, 0x01000193);
  };
  mix(r.tsv);
  for (const tag of r.tags) mix(tag);
  return h >>> 0;
}

/** The index, the snapshot its reads started from, and each sound's textHash (by id). */
export interface LoadedPostingIndex {
  readonly index: PostingIndexData;
  /** `pg_current_snapshot()` before the first read: every change it does not see is to be applied. */
  readonly snapshot: string;
  readonly hashes: Uint32Array;
  /** The database it was read from (its oid): a snapshot of another one is not caught up, but rebuilt. */
  readonly database: string;
}

/**
 * Builds the posting index from the catalogue's search document (every visible sound), reading
 * it in id order. `progress` is called after each batch with the sounds read so far.
 */
export async function loadPostingIndex(
  db: Kysely<any>,
  progress?: (read: number, total: number) => void,
): Promise<PostingIndexData> {
  return (await loadPostingIndexSince(db, progress)).index;
}

/**
 * loadPostingIndex, with the snapshot taken before its first read: the batches read later states,
 * so every change committed after it may or may not be in the index, and applying the changes that
 * snapshot does not see (search-changes.ts) brings it up to date.
 */
export async function loadPostingIndexSince(
  db: Kysely<any>,
  progress?: (read: number, total: number) => void,
): Promise<LoadedPostingIndex> {
  const { snapshot, database } = (await catalogueSnapshot(db)) as { snapshot: string; database: string };
  const bounds = (
    await sql<{
      max_id: number | null;
      n: number;
      max_pack: number | null;
    }>`select max(id) as max_id, count(*)::int as n, max(pack_id) as max_pack from ${sql.table(SEARCH_TABLE)}`.execute(
      db,
    )
  ).rows[0];
  const size = (bounds.max_id ?? 0) + 1;
  const columns = emptyColumns(size);
  const hashes = new Uint32Array(size);
  const keywords: string[] = [];
  const keyword = keywordOf(keywords);
  const facets = new FacetCodes();
  const lexemes = new PostingsBuilder();
  const tags = new PostingsBuilder();
  // Each sound's tags (as the tag builder's keys), appended in id order.
  const tagStarts = new Uint32Array(size + 1);
  const soundTags = new GrowingIds();
  let filled = 0;
  // Id ranges, the next one read while this one is indexed (reading is most of the time).
  const batch = (from: number) => readDocuments(db, { from, to: from + BATCH });
  let read = 0;
  let next = batch(0);
  for (let from = 0; from < size; from += BATCH) {
    const rows = await next;
    if (from + BATCH < size) next = batch(from + BATCH);
    for (const r of rows) {
      const id = r.id;
      writeColumns(columns, r, keyword, facets);
      hashes[id] = textHash(r);
      readTsvector(r.tsv, (lexeme, positions, bare) =>
        lexemes.add(lexeme, id, singleLexemeRank(positions), positions, bare),
      );
      while (filled <= id) tagStarts[filled++] = soundTags.length;
      for (const tag of new Set(r.tags)) soundTags.push(tags.add(tag, id, 0, NO_TEXT_POSITION, false));
    }
    read += rows.length;
    progress?.(read, bounds.n);
  }
  while (filled <= size) tagStarts[filled++] = soundTags.length;
  const tagLists = new Map<string, Uint32Array>();
  // Tags keep ids only: their lists' scores and positions are dropped here.
  for (const [tag, list] of tags.build()) tagLists.set(tag, list.ids);
  return {
    index: {
      lexemes: lexemes.build(),
      tags: tagLists,
      columns,
      keywords,
      maxPackId: bounds.max_pack ?? 0,
      facetValues: facets.values,
      tagNames: [...tagLists.keys()],
      tagsBySound: { starts: tagStarts, tags: soundTags.array() },
    },
    snapshot,
    hashes,
    database,
  };
}

/**
 * The catalogue's current snapshot and database oid; with `since`, only when that earlier snapshot
 * can be caught up from here (the same database, and a snapshot not from the future of this one,
 * as one from another cluster could be).
 */
export async function catalogueSnapshot(
  db: Kysely<any>,
  since?: { snapshot: string; database: string },
): Promise<{ snapshot: string; database: string } | undefined> {
  const { rows } = await sql<{ snapshot: string; database: string; follows: boolean }>`
    select pg_current_snapshot()::text as snapshot,
      (select oid::text from pg_database where datname = current_database()) as database,
      ${since?.snapshot ?? null}::pg_snapshot is null
        or pg_snapshot_xmax(${since?.snapshot ?? null}::pg_snapshot) <= pg_snapshot_xmax(pg_current_snapshot()) as follows`.execute(
    db,
  );
  const r = rows[0];
  if (since && (!r.follows || r.database !== since.database)) return undefined;
  return { snapshot: r.snapshot, database: r.database };
}

/** Numbers lower-cased license and type values in `keywords` (appending new ones). */
export function keywordOf(keywords: string[]): (v: string) => number {
  return (v) => {
    let k = keywords.indexOf(v);
    if (k < 0) k = keywords.push(v) - 1;
    return k;
  };
}
