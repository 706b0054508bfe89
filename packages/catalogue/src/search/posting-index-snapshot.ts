import { MANY_POSITIONS, type Positions } from './multi-lexeme-rank.ts';
import type { FacetColumn, PostingList, SoundColumns } from './posting-index.ts';
import { GrowingUint16, type LoadedPostingIndex } from './posting-index-load.ts';

/**
 * A loaded posting index as bytes and back (issue 33's start-up): the lists, the columns and the
 * text hashes as they are in memory, with the catalogue snapshot the load started from, so that a
 * process starting from it catches up from `search_changes` like one that built it. The names and
 * the layout are a JSON header; the arrays follow, each at a multiple of 8 bytes, read back as
 * views of the buffer (no copy). Bytes in shared memory can back the indexes of several threads:
 * the lists are only read, so each reader views them where they are, and the per-sound columns and
 * hashes, which a live index writes in place, are copied for each.
 */

const MAGIC = 'ESPI';
/**
 * 2: the facet columns and each sound's tags (issue 36); 3: each posting's positions (the exact
 * rank of several words). A snapshot of an earlier format means a build.
 */
const FORMAT = 3;

const COLUMN_TYPES = {
  present: Uint8Array,
  duration: Float64Array,
  created: Float64Array,
  downloads: Int32Array,
  rating: Float64Array,
  numRatings: Int32Array,
  license: Uint16Array,
  type: Uint16Array,
  packId: Int32Array,
  bpm: Float32Array,
  category: Uint16Array,
  subcategory: Uint16Array,
  username: Uint32Array,
  pack: Uint32Array,
  samplerate: Uint32Array,
  channels: Uint16Array,
  bitdepth: Uint16Array,
} as const;

type Typed = Uint8Array | Uint16Array | Int32Array | Uint32Array | Float32Array | Float64Array;

interface Header {
  format: number;
  snapshot: string;
  database: string;
  size: number;
  keywords: string[];
  maxPackId: number;
  lexemes: string[];
  tags: string[];
  postings: number;
  /** The 16-bit values of the postings that have several positions (Positions.more). */
  morePositions: number;
  tagPostings: number;
  facetValues: Record<FacetColumn, readonly string[]>;
  soundTags: number;
}

/** The pieces of a snapshot file, in order (written one after another: no copy of the arrays). */
export function encodePostingIndex(loaded: LoadedPostingIndex): Uint8Array[] {
  const { index } = loaded;
  const lexemes = [...index.lexemes.keys()];
  const tags = [...index.tags.keys()];
  const lists = lexemes.map((l) => index.lexemes.get(l) as PostingList);
  const tagLists = tags.map((t) => index.tags.get(t) as Uint32Array);
  const postings = lists.reduce((n, l) => n + l.ids.length, 0);
  const tagPostings = tagLists.reduce((n, l) => n + l.length, 0);
  const positions = onePositionStore(lists, postings);
  const header: Header = {
    format: FORMAT,
    snapshot: loaded.snapshot,
    database: loaded.database,
    size: index.columns.present.length,
    keywords: [...index.keywords],
    maxPackId: index.maxPackId,
    lexemes,
    tags,
    postings,
    morePositions: positions.more.length,
    tagPostings,
    facetValues: index.facetValues,
    soundTags: index.tagsBySound.tags.length,
  };
  const json = Buffer.from(JSON.stringify(header));
  const head = Buffer.alloc(8);
  head.write(MAGIC, 0, 'latin1');
  head.writeUInt32LE(json.length, 4);
  const parts: Uint8Array[] = [head, json, padding(8 + json.length)];
  let at = 8 + json.length + padding(8 + json.length).length;
  const push = (array: Typed) => {
    const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
    parts.push(bytes);
    at += bytes.length;
    const pad = padding(at);
    parts.push(pad);
    at += pad.length;
  };
  push(offsets(lists.map((l) => l.ids.length)));
  push(
    concat(
      Uint32Array,
      postings,
      lists.map((l) => l.ids),
    ),
  );
  push(
    concat(
      Float32Array,
      postings,
      lists.map((l) => l.scores),
    ),
  );
  push(positions.first);
  push(positions.more);
  push(offsets(tagLists.map((l) => l.length)));
  push(concat(Uint32Array, tagPostings, tagLists));
  for (const key of Object.keys(COLUMN_TYPES) as (keyof SoundColumns)[]) push(index.columns[key]);
  push(loaded.hashes);
  push(index.tagsBySound.starts);
  push(index.tagsBySound.tags);
  return parts;
}

/** Reads what encodePostingIndex wrote; undefined when the bytes are not a snapshot of this format. */
export function decodePostingIndex(bytes: Uint8Array): LoadedPostingIndex | undefined {
  // Views need their element alignment: a buffer that does not start at a multiple of 8 is copied.
  const data = bytes.byteOffset % 8 === 0 ? bytes : bytes.slice();
  const view = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (view.length < 8 || view.toString('latin1', 0, 4) !== MAGIC) return undefined;
  const jsonLength = view.readUInt32LE(4);
  const header = JSON.parse(view.toString('utf8', 8, 8 + jsonLength)) as Header;
  if (header.format !== FORMAT) return undefined;
  let at = 8 + jsonLength;
  at += padding(at).length;
  type Constructor<T> = { new (b: ArrayBufferLike, o: number, n: number): T; BYTES_PER_ELEMENT: number };
  const take = <T extends Typed>(Type: Constructor<T>, n: number): T => {
    const array = new Type(data.buffer, data.byteOffset + at, n);
    at += n * Type.BYTES_PER_ELEMENT;
    at += padding(at).length;
    return array;
  };
  const lexemeOffsets = take(Uint32Array, header.lexemes.length + 1);
  const ids = take(Uint32Array, header.postings);
  const scores = take(Float32Array, header.postings);
  const first = take(Uint32Array, header.postings);
  const more = take(Uint16Array, header.morePositions);
  const tagOffsets = take(Uint32Array, header.tags.length + 1);
  const tagIds = take(Uint32Array, header.tagPostings);
  const lexemes = new Map<string, PostingList>();
  for (const [i, name] of header.lexemes.entries())
    lexemes.set(name, {
      ids: ids.subarray(lexemeOffsets[i], lexemeOffsets[i + 1]),
      scores: scores.subarray(lexemeOffsets[i], lexemeOffsets[i + 1]),
      positions: { first: first.subarray(lexemeOffsets[i], lexemeOffsets[i + 1]), more },
    });
  const tags = new Map<string, Uint32Array>();
  for (const [i, name] of header.tags.entries())
    tags.set(name, tagIds.subarray(tagOffsets[i], tagOffsets[i + 1]));
  const shared = data.buffer instanceof SharedArrayBuffer;
  const own = <T extends Typed>(array: T): T => (shared ? (array.slice() as T) : array);
  const columns = {} as Record<keyof SoundColumns, Typed>;
  for (const [key, Type] of Object.entries(COLUMN_TYPES))
    columns[key as keyof SoundColumns] = own(take(Type as Constructor<Typed>, header.size));
  const hashes = own(take(Uint32Array, header.size));
  const tagStarts = take(Uint32Array, header.size + 1);
  const soundTags = take(Uint32Array, header.soundTags);
  if (at > data.byteLength) return undefined;
  return {
    index: {
      lexemes,
      tags,
      columns: columns as unknown as SoundColumns,
      keywords: header.keywords,
      maxPackId: header.maxPackId,
      facetValues: header.facetValues,
      tagNames: header.tags,
      tagsBySound: { starts: tagStarts, tags: soundTags },
    },
    snapshot: header.snapshot,
    database: header.database,
    hashes,
  };
}

/** A snapshot's pieces (or any bytes) as one array in shared memory, for decodePostingIndex in several threads. */
export function inSharedMemory(parts: readonly Uint8Array[]): Uint8Array {
  const bytes = new Uint8Array(new SharedArrayBuffer(parts.reduce((n, part) => n + part.length, 0)));
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return bytes;
}

/**
 * The lists' positions in one `first` array (in the lists' order) and one `more` store: lists read
 * from different stores (a build shares one, an overlay has its own) get their offsets rewritten.
 */
function onePositionStore(lists: readonly PostingList[], postings: number): Positions {
  const first = new Uint32Array(postings);
  const more = new GrowingUint16();
  let at = 0;
  for (const list of lists) {
    const { first: from, more: source } = list.positions;
    for (let i = 0; i < from.length; i++, at++) {
      const v = from[i];
      if (v < MANY_POSITIONS) first[at] = v;
      else {
        const k = v - MANY_POSITIONS;
        first[at] = MANY_POSITIONS + more.push(source[k]);
        for (let j = 1; j <= source[k]; j++) more.push(source[k + j]);
      }
    }
  }
  return { first, more: more.array() };
}

function padding(at: number): Uint8Array {
  return new Uint8Array((8 - (at % 8)) % 8);
}

function offsets(lengths: number[]): Uint32Array {
  const out = new Uint32Array(lengths.length + 1);
  for (let i = 0; i < lengths.length; i++) out[i + 1] = out[i] + lengths[i];
  return out;
}

function concat<T extends Uint32Array | Float32Array>(
  Type: { new (n: number): T },
  total: number,
  parts: readonly T[],
): T {
  const out = new Type(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
