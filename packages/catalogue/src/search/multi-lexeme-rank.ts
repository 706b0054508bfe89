/**
 * ts_rank of several lexemes in one document, as PostgreSQL computes it for a query whose top
 * operator is AND or a phrase (`calc_rank_and` in tsrank.c), in the same float4 steps: every pair
 * of the query's distinct lexemes, every pair of their positions, adds a weight that falls with the
 * distance between them; the pairs are taken in the order PostgreSQL takes them (lexemes sorted as
 * byte strings, then by length; for each lexeme the earlier ones), because the float sums depend on
 * it. With the posting index holding every lexeme's positions, a relevance page of several words
 * is ranked exactly in the process, as one word's already is; and a quoted phrase is matched on the
 * same positions (`RankScratch.phrase`). A phrase does not change the rank: PostgreSQL ranks a
 * phrase query as the AND of its distinct lexemes.
 */

/**
 * The positions of a list's postings, for the rank of several lexemes (it depends on how close
 * they are) and for phrases. Each is PostgreSQL's WordEntryPos: the position (14 bits) and its
 * weight class code above it. `first[i]` holds posting i's only position, NO_POSITIONS for a
 * lexeme stored without positions, or MANY_POSITIONS + k for several: `more[k]` is their number
 * and they follow it.
 * `first` runs beside the list's ids; `more` may be shared by many lists.
 */
export interface Positions {
  readonly first: Uint32Array;
  readonly more: Uint16Array;
}

export const MANY_POSITIONS = 0x8000_0000;
export const NO_POSITIONS = 0x4000_0000;

/**
 * A quoted phrase as PostgreSQL's `phraseto_tsquery` builds it: its lexemes in order (a lexeme may
 * come back) and, between each and the next, the distance of the `<N>` operator (1, or more where
 * stopwords were dropped).
 */
export interface PhraseChain {
  readonly lexemes: readonly string[];
  readonly distances: readonly number[];
}

/** PostgreSQL sorts a query's lexemes as byte strings (memcmp of the shorter length, then length). */
export function rankOrder(lexemes: readonly string[]): string[] {
  return [...new Set(lexemes)].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/** PostgreSQL caps a lexeme's positions in one document at 256 (MAXNUMPOS). */
const MAX_POSITIONS = 256;
const POSITION_MASK = 0x3fff;
const MAX_ENTRY_POS = 1 << 14;

/** `word_distance`: the weight of two positions `dist` apart, as float4. */
const WORD_DISTANCE = (() => {
  const table = new Float64Array(101);
  for (let d = 1; d <= 100; d++) table[d] = Math.fround(1 / (1.005 + 0.05 * Math.exp(d / 1.5 - 2)));
  return table;
})();
const FAR = Math.fround(1e-30);
const NO_MATCH_RANK = Math.fround(1e-20);

/** Room for the positions of one document's query lexemes, reused from document to document. */
export class RankScratch {
  readonly positions: Uint16Array;
  readonly counts: Uint16Array;
  /** 1 where the lexeme was stored without positions (PostgreSQL's dummy position counts at distance 0). */
  readonly bare: Uint8Array;
  readonly weights: Float32Array;
  /** A phrase's positions matched so far. */
  private readonly at = new Int32Array(MAX_POSITIONS);

  constructor(
    readonly lexemes: number,
    weights: readonly number[],
  ) {
    this.positions = new Uint16Array(lexemes * MAX_POSITIONS);
    this.counts = new Uint16Array(lexemes);
    this.bare = new Uint8Array(lexemes);
    this.weights = Float32Array.from(weights);
  }

  /** Puts posting `at` of `list` in slot `slot` (the lexeme's place in rankOrder). */
  load(slot: number, list: Positions, at: number): void {
    const first = list.first[at];
    const base = slot * MAX_POSITIONS;
    if (first >= MANY_POSITIONS) {
      const k = first - MANY_POSITIONS;
      const n = list.more[k];
      for (let i = 0; i < n; i++) this.positions[base + i] = list.more[k + 1 + i];
      this.counts[slot] = n;
      this.bare[slot] = 0;
    } else if (first === NO_POSITIONS) {
      this.positions[base] = MAX_ENTRY_POS - 1;
      this.counts[slot] = 1;
      this.bare[slot] = 1;
    } else {
      this.positions[base] = first;
      this.counts[slot] = 1;
      this.bare[slot] = 0;
    }
  }

  /**
   * Whether the loaded document holds a phrase, as PostgreSQL's phrase operator decides it
   * (TS_phrase_execute): `slots[0]`'s positions, each moved on by the next distance, merged with
   * the next slot's positions (the common ones go on), until the last slot; a match is any position
   * left. Positions are compared without their weight class, as stored (capped at 16383). A lexeme
   * stored without positions makes the phrase a "maybe", which `@@` counts as no match.
   */
  phrase(slots: readonly number[], distances: readonly number[]): boolean {
    const { positions, counts, bare, at } = this;
    for (const slot of slots) if (bare[slot] === 1) return false;
    let n = counts[slots[0]];
    for (let i = 0, base = slots[0] * MAX_POSITIONS; i < n; i++) at[i] = positions[base + i] & POSITION_MASK;
    for (let s = 1; s < slots.length && n > 0; s++) {
      const base = slots[s] * MAX_POSITIONS;
      const m = counts[slots[s]];
      const d = distances[s - 1];
      // Both lists ascend: one merge, the matches written over the list being read (never ahead of it).
      let kept = 0;
      let l = 0;
      let r = 0;
      while (l < n && r < m) {
        const left = at[l] + d;
        const right = positions[base + r] & POSITION_MASK;
        if (left < right) l++;
        else if (left > right) r++;
        else {
          at[kept++] = right;
          l++;
          r++;
        }
      }
      n = kept;
    }
    return n > 0;
  }

  /** calc_rank_and over the loaded slots (every slot loaded: the document holds every lexeme). */
  rank(): number {
    const f = Math.fround;
    const { positions, counts, bare, weights } = this;
    let res = -1;
    for (let i = 1; i < this.lexemes; i++) {
      const bi = i * MAX_POSITIONS;
      for (let k = 0; k < i; k++) {
        const bk = k * MAX_POSITIONS;
        const either = bare[i] === 1 || bare[k] === 1;
        for (let l = 0; l < counts[i]; l++) {
          const a = positions[bi + l];
          for (let p = 0; p < counts[k]; p++) {
            const b = positions[bk + p];
            let dist = Math.abs((a & POSITION_MASK) - (b & POSITION_MASK));
            if (dist === 0 && !either) continue;
            if (dist === 0) dist = MAX_ENTRY_POS;
            const near = dist > 100 ? FAR : WORD_DISTANCE[dist];
            const curw = f(Math.sqrt(f(f(weights[a >> 14] * weights[b >> 14]) * near)));
            res = res < 0 ? curw : f(1 - (1 - res) * (1 - curw));
          }
        }
      }
    }
    return res < 0 ? NO_MATCH_RANK : res;
  }
}

/** Appends a document's positions of one lexeme to `more` when there are several; returns its `first` value. */
export function encodePositions(
  positions: ArrayLike<number>,
  bare: boolean,
  more: { push(v: number): number },
): number {
  if (bare) return NO_POSITIONS;
  if (positions.length === 1) return positions[0];
  const at = more.push(positions.length);
  for (let i = 0; i < positions.length; i++) more.push(positions[i]);
  return MANY_POSITIONS + at;
}
