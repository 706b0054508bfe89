import { encodePositions } from './multi-lexeme-rank.ts';
import {
  type PostingIndexData,
  type PostingList,
  type PostingOverlay,
  type SoundColumns,
  singleLexemeRank,
} from './posting-index.ts';
import {
  type DocumentRow,
  emptyColumns,
  FacetCodes,
  GrowingUint16,
  keywordOf,
  type LoadedPostingIndex,
  readTsvector,
  textHash,
  writeColumns,
} from './posting-index-load.ts';

/** A changed document's posting of one lexeme: its own score and its positions. */
interface OverlayPosting {
  readonly score: number;
  readonly positions: readonly number[];
  readonly bare: boolean;
}

/** What a changed document contributed to the overlay, to take it out when it changes again. */
interface OverlayDocument {
  readonly lexemes: readonly string[];
  readonly tags: readonly string[];
}

/**
 * A posting index kept current with the catalogue's changes: the lists built at load stay as they
 * are, a changed document's id is masked in them and its current postings held in a small overlay
 * (merged at search time by searchPostingIndex), and the per-sound columns are written in place.
 * A change that leaves the document's text and tags as they were (downloads, ratings, a bpm) only
 * writes the columns. `overlaySize` tells the owner when to rebuild the lists from scratch.
 */
export class LivePostingIndex {
  private columns: SoundColumns;
  private hashes: Uint32Array;
  private masked: Uint8Array;
  /** The masked ids in the order they were masked, and the ascending copy searches read (made when asked). */
  private readonly maskedOrder: number[] = [];
  private maskedSorted: Uint32Array | undefined = new Uint32Array(0);
  private maxPackId: number;
  private readonly keyword: (v: string) => number;
  private readonly keywords: string[];
  private readonly facets: FacetCodes;
  private readonly docs = new Map<number, OverlayDocument>();
  private readonly lexemes = new Map<string, Map<number, OverlayPosting>>();
  private readonly tags = new Map<string, Set<number>>();
  /** Sorted lists of the overlay, made when a search asks, dropped when the lexeme or tag changes. */
  private readonly sortedLexemes = new Map<string, PostingList>();
  private readonly sortedTags = new Map<string, Uint32Array>();
  private current: PostingIndexData;

  constructor(private readonly base: LoadedPostingIndex) {
    this.columns = base.index.columns;
    this.hashes = base.hashes;
    this.masked = new Uint8Array(this.columns.present.length);
    this.maxPackId = base.index.maxPackId;
    this.keywords = [...base.index.keywords];
    this.keyword = keywordOf(this.keywords);
    this.facets = new FacetCodes(base.index.facetValues);
    this.current = this.view();
  }

  /** The index as searchPostingIndex reads it (a new object when its arrays grew). */
  get data(): PostingIndexData {
    return this.current;
  }

  /** Documents held in the overlay. */
  get overlaySize(): number {
    return this.docs.size;
  }

  /** Sounds with a document. */
  get size(): number {
    let n = 0;
    for (const p of this.columns.present) n += p;
    return n;
  }

  /**
   * Brings the listed sounds up to date: `rows` are the current documents of those that have one
   * (the others were deleted or hidden).
   */
  apply(ids: readonly number[], rows: readonly DocumentRow[]): void {
    const byId = new Map(rows.map((r) => [r.id, r]));
    let top = -1;
    for (const id of ids) if (id > top) top = id;
    const grown = top >= this.columns.present.length;
    if (grown) this.grow(top + 1);
    let packsGrew = false;
    for (const id of ids) {
      const row = byId.get(id);
      if (!row) {
        this.forget(id);
        this.columns.present[id] = 0;
        continue;
      }
      const hash = textHash(row);
      const same = this.columns.present[id] === 1 && this.hashes[id] === hash;
      writeColumns(this.columns, row, this.keyword, this.facets);
      if ((row.pack_id ?? 0) > this.maxPackId) {
        this.maxPackId = row.pack_id as number;
        packsGrew = true;
      }
      if (same) continue;
      this.forget(id);
      this.hashes[id] = hash;
      this.add(row);
    }
    // Search scratch arrays are sized by the view: a new one when ids or packs outgrew them.
    if (grown || packsGrew) this.current = this.view();
  }

  private view(): PostingIndexData {
    const overlay: PostingOverlay = {
      masked: this.masked,
      maskedIds: () => {
        this.maskedSorted ??= Uint32Array.from(this.maskedOrder).sort();
        return this.maskedSorted;
      },
      lexeme: (name) => this.sortedLexeme(name),
      tag: (name) => this.sortedTag(name),
      tagsOf: (id) => this.docs.get(id)?.tags,
    };
    return {
      lexemes: this.base.index.lexemes,
      tags: this.base.index.tags,
      columns: this.columns,
      keywords: this.keywords,
      maxPackId: this.maxPackId,
      facetValues: this.facets.values,
      tagNames: this.base.index.tagNames,
      tagsBySound: this.base.index.tagsBySound,
      overlay,
    };
  }

  /** Masks the id in the base lists and takes its document out of the overlay. */
  private forget(id: number): void {
    if (this.masked[id] !== 1) {
      this.masked[id] = 1;
      this.maskedOrder.push(id);
      this.maskedSorted = undefined;
    }
    const doc = this.docs.get(id);
    if (!doc) return;
    this.docs.delete(id);
    for (const lexeme of doc.lexemes) {
      const postings = this.lexemes.get(lexeme);
      postings?.delete(id);
      if (postings?.size === 0) this.lexemes.delete(lexeme);
      this.sortedLexemes.delete(lexeme);
    }
    for (const tag of doc.tags) {
      const ids = this.tags.get(tag);
      ids?.delete(id);
      if (ids?.size === 0) this.tags.delete(tag);
      this.sortedTags.delete(tag);
    }
  }

  private add(row: DocumentRow): void {
    const lexemes: string[] = [];
    readTsvector(row.tsv, (lexeme, positions, bare) => {
      lexemes.push(lexeme);
      let postings = this.lexemes.get(lexeme);
      if (!postings) {
        postings = new Map();
        this.lexemes.set(lexeme, postings);
      }
      postings.set(row.id, { score: singleLexemeRank(positions), positions: [...positions], bare });
      this.sortedLexemes.delete(lexeme);
    });
    const tags = [...new Set(row.tags)];
    for (const tag of tags) {
      let ids = this.tags.get(tag);
      if (!ids) {
        ids = new Set();
        this.tags.set(tag, ids);
      }
      ids.add(row.id);
      this.sortedTags.delete(tag);
    }
    this.docs.set(row.id, { lexemes, tags });
  }

  private sortedLexeme(name: string): PostingList | undefined {
    let list = this.sortedLexemes.get(name);
    if (list) return list;
    const postings = this.lexemes.get(name);
    if (!postings) return undefined;
    const ids = Uint32Array.from(postings.keys()).sort();
    const scores = new Float32Array(ids.length);
    const first = new Uint32Array(ids.length);
    const more = new GrowingUint16(16);
    for (const [i, id] of ids.entries()) {
      const posting = postings.get(id) as OverlayPosting;
      scores[i] = posting.score;
      first[i] = encodePositions(posting.positions, posting.bare, more);
    }
    list = { ids, scores, positions: { first, more: more.array() } };
    this.sortedLexemes.set(name, list);
    return list;
  }

  private sortedTag(name: string): Uint32Array | undefined {
    let ids = this.sortedTags.get(name);
    if (ids) return ids;
    const set = this.tags.get(name);
    if (!set) return undefined;
    ids = Uint32Array.from(set).sort();
    this.sortedTags.set(name, ids);
    return ids;
  }

  /** Room for ids below `size` (and a quarter more, so that new sounds do not copy every time). */
  private grow(size: number): void {
    const next = Math.max(size, Math.ceil(this.columns.present.length * 1.25));
    const columns = emptyColumns(next);
    for (const key of Object.keys(columns) as (keyof SoundColumns)[])
      (columns[key] as Uint8Array).set(this.columns[key] as Uint8Array);
    this.columns = columns;
    const hashes = new Uint32Array(next);
    hashes.set(this.hashes);
    this.hashes = hashes;
    const masked = new Uint8Array(next);
    masked.set(this.masked);
    this.masked = masked;
  }
}
