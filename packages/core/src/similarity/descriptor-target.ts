import { ValidationError } from '@earshot/common/errors';
import type { DescriptorTable } from './descriptor-table.ts';
import { InvalidTargetError, SoundNotIndexedError, UnknownDescriptorError } from './errors.ts';
import type { SoundFilter } from './similarity-index.ts';
import { TopK } from './top-k.ts';

/** A content-search target: descriptor values, or a sound whose own values are the target. */
export type DescriptorTarget =
  | { kind: 'values'; terms: Array<{ descriptor: string; values: number[] }> }
  | { kind: 'sound'; soundId: number };

/**
 * What a sound-id target compares when the caller names no descriptors: timbre (MFCC means) plus
 * brightness, noisiness, pitch, roughness and attack. Only those the table holds are used.
 */
export const DEFAULT_SOUND_TARGET_DESCRIPTORS: readonly string[] = [
  'lowlevel.mfcc.mean',
  'lowlevel.spectral_centroid.mean',
  'lowlevel.spectral_flatness_db.mean',
  'lowlevel.zerocrossingrate.mean',
  'lowlevel.pitch.mean',
  'lowlevel.dissonance.mean',
  'sfx.logattacktime',
];

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/**
 * Parses the API's `target`: a sound id, or space-separated `descriptor:value` pairs where a
 * vector's value is comma-separated (`lowlevel.mfcc.mean:1,2,…`) and one dimension is
 * `name[i]:value`. Names may be dotted variant-A, flat variant-B, or v1's leading-dot form.
 */
export function parseDescriptorTarget(target: string | number): DescriptorTarget {
  const text = String(target).trim();
  if (text === '') throw new InvalidTargetError('Invalid target: it is empty');
  if (/^\d+$/.test(text)) {
    const soundId = Number(text);
    if (!Number.isSafeInteger(soundId) || soundId < 1)
      throw new InvalidTargetError(`Invalid target sound id ${text}`);
    return { kind: 'sound', soundId };
  }
  const terms: Array<{ descriptor: string; values: number[] }> = [];
  for (const term of targetTerms(text)) {
    const quote = term.indexOf('"');
    const colon = term.lastIndexOf(':', quote < 0 ? term.length : quote);
    if (colon <= 0 || colon === term.length - 1) {
      throw new InvalidTargetError(`Invalid target term "${term}": expected descriptor_name:value`);
    }
    const descriptor = term.slice(0, colon);
    const written = term.slice(colon + 1);
    // A quoted value is one value (it may hold spaces): named whole, it says what was refused.
    if (written.includes('"')) {
      throw new InvalidTargetError(
        `Invalid target value "${written.replace(/^"|"$/g, '')}" for ${descriptor}: only numbers are allowed`,
      );
    }
    const values = written.split(',').map((raw) => {
      if (!NUMBER.test(raw)) {
        throw new InvalidTargetError(
          `Invalid target value "${raw}" for ${descriptor}: only numbers are allowed`,
        );
      }
      const value = Number(raw);
      // `1e999` is a well-formed number that JavaScript reads as Infinity: no distance to it means anything.
      if (!Number.isFinite(value)) {
        throw new InvalidTargetError(`Invalid target value "${raw}" for ${descriptor}: out of range`);
      }
      return value;
    });
    terms.push({ descriptor, values });
  }
  return { kind: 'values', terms };
}

/**
 * The space-separated terms of a target; a double-quoted part of a term (a value someone quoted, as
 * in a filter) keeps its spaces, so its error can name it whole.
 */
function targetTerms(text: string): string[] {
  const terms: string[] = [];
  let term = '';
  let quoted = false;
  for (const c of text) {
    if (c === '"') quoted = !quoted;
    if (!quoted && /\s/.test(c)) {
      if (term) terms.push(term);
      term = '';
    } else term += c;
  }
  if (quoted) throw new InvalidTargetError(`Invalid target term "${term}": the quote is never closed`);
  if (term) terms.push(term);
  return terms;
}

export interface DescriptorSearchOptions {
  /** How many results, best first (default 15). For page n of size s, ask for offset (n-1)·s and k s. */
  k?: number;
  offset?: number;
  /** Which sounds may be results: a predicate, an id set, or a row set prepared for this table. */
  filter?: SoundFilter | DescriptorRowSet;
  /** For a sound-id target: which descriptors to compare (default DEFAULT_SOUND_TARGET_DESCRIPTORS). */
  descriptors?: readonly string[];
}

/**
 * A filter's sounds resolved to table rows once (ascending, so a scan walks the columns forwards)
 * and reused by every search with the same filter until the table changes. Combined search
 * repeats one text filter on every request and page; resolving its ids to rows each time was a
 * hash lookup per id per request (24k for `duration:[0 TO 2]` at 100k sounds).
 */
export class DescriptorRowSet {
  private readonly ids: Int32Array;
  private rows: Int32Array | undefined;
  private version = -1;
  private table: DescriptorTable | undefined;

  constructor(ids: Iterable<number>) {
    this.ids = Int32Array.from(ids);
  }

  /** How many sounds the filter admits (whether or not the table holds them). */
  get size(): number {
    return this.ids.length;
  }

  /** The rows for the table as it is now; recomputed only after the table changed. */
  rowsIn(table: DescriptorTable): Int32Array {
    if (this.rows === undefined || this.table !== table || this.version !== table.version) {
      this.rows = table.rowsOf(this.ids);
      this.table = table;
      this.version = table.version;
    }
    return this.rows;
  }
}

export interface DescriptorSearchResult {
  /** Sounds that pass the filter and have every targeted value (the result count). */
  total: number;
  results: Array<{ id: number; distance: number }>;
}

interface ResolvedColumn {
  values: Float32Array;
  target: number;
  /** weight / std²: each named descriptor weighs the same in total, whatever its dimension count. */
  factor: number;
}

function resolveTerms(table: DescriptorTable, target: DescriptorTarget, options: DescriptorSearchOptions) {
  const columns: ResolvedColumn[] = [];
  const add = (keys: string[], values: number[]) => {
    keys.forEach((key, i) => {
      const { std } = table.stats(key);
      // A column with no spread cannot rank anything; keep it in unit scale rather than divide by zero.
      const scale = std > 0 ? std : 1;
      columns.push({
        values: table.columnValues(key),
        target: values[i],
        factor: 1 / keys.length / (scale * scale),
      });
    });
  };
  if (target.kind === 'values') {
    if (target.terms.length === 0) throw new InvalidTargetError('Invalid target: it names no descriptor');
    for (const term of target.terms) {
      const keys = table.resolve(term.descriptor);
      if (keys.length !== term.values.length) {
        throw new InvalidTargetError(
          keys.length === 1
            ? `Target ${term.descriptor} takes one value, got ${term.values.length}`
            : `Target ${term.descriptor} has ${keys.length} dimensions, got ${term.values.length} values`,
        );
      }
      add(keys, term.values);
    }
    return { columns, exclude: undefined };
  }
  if (!table.has(target.soundId)) throw new SoundNotIndexedError(target.soundId);
  const named = options.descriptors ?? DEFAULT_SOUND_TARGET_DESCRIPTORS;
  for (const descriptor of named) {
    let keys: string[];
    try {
      keys = table.resolve(descriptor);
    } catch (error) {
      // The default list adapts to what the table holds; a list the caller gave must be right.
      if (error instanceof UnknownDescriptorError && !options.descriptors) continue;
      throw error;
    }
    const values = keys.map((key) => table.valueOf(target.soundId, key));
    if (values.some(Number.isNaN)) continue;
    add(keys, values);
  }
  if (columns.length === 0) {
    throw new InvalidTargetError(`Sound ${target.soundId} has none of the descriptors a target compares`);
  }
  return { columns, exclude: target.soundId };
}

/**
 * Ranks the table's sounds by distance to a target: Euclidean over standardised values
 * ((x − target) / std, std over the whole table) of just the named descriptors, each descriptor
 * weighing the same. Sounds missing a targeted value are left out. One pass over the named
 * Float32Array columns with a bounded heap.
 */
export function searchDescriptorTarget(
  table: DescriptorTable,
  target: DescriptorTarget,
  options: DescriptorSearchOptions = {},
): DescriptorSearchResult {
  const k = options.k ?? 15;
  const offset = options.offset ?? 0;
  if (!Number.isInteger(k) || k < 1) throw new ValidationError(`k must be a positive integer, got ${k}`);
  if (!Number.isInteger(offset) || offset < 0)
    throw new ValidationError(`offset must be 0 or more, got ${offset}`);
  const { columns, exclude } = resolveTerms(table, target, options);
  const filter = options.filter;
  // Never more places than rows: a page far past the end must not allocate for the places before it.
  const top = new TopK(Math.min(offset + k, table.size));
  let total: number;
  if (filter instanceof DescriptorRowSet) {
    total = scanRows(table, columns, exclude, top, filter.rowsIn(table), undefined);
  } else if (filter instanceof Set && filter.size < table.size) {
    // Combined search hands over the ids that passed the text filter: visit just their rows.
    total = scanRows(table, columns, exclude, top, table.rowsOf(filter), undefined);
  } else {
    const passes =
      filter === undefined
        ? undefined
        : typeof filter === 'function'
          ? filter
          : (id: number) => filter.has(id);
    total = scanRows(table, columns, exclude, top, null, passes);
  }
  const results = top
    .sorted()
    .slice(offset)
    .map(({ id, cost }) => ({ id, distance: Math.sqrt(cost) }));
  return { total, results };
}

const NO_VALUES = new Float32Array(0);

/**
 * The hot loop over rows (all of the table's, or just the listed ones). The first three columns
 * live in locals (most targets name one to three descriptors), the rest in a generic inner loop.
 * Returns how many rows qualified.
 */
function scanRows(
  table: DescriptorTable,
  columns: ResolvedColumn[],
  exclude: number | undefined,
  top: TopK,
  rows: Int32Array | null,
  passes: ((id: number) => boolean) | undefined,
): number {
  const [first, second, third] = columns;
  const a0 = first.values;
  const t0 = first.target;
  const f0 = first.factor;
  const a1 = second?.values ?? NO_VALUES;
  const t1 = second?.target ?? 0;
  const f1 = second?.factor ?? 0;
  const a2 = third?.values ?? NO_VALUES;
  const t2 = third?.target ?? 0;
  const f2 = third?.factor ?? 0;
  const extra = columns.slice(3);
  const width = columns.length;
  const n = rows === null ? table.size : rows.length;
  let total = 0;
  let threshold = top.threshold;
  for (let i = 0; i < n; i++) {
    const row = rows === null ? i : rows[i];
    const d0 = a0[row] - t0;
    let sum = f0 * d0 * d0;
    if (width > 1) {
      const d1 = a1[row] - t1;
      sum += f1 * d1 * d1;
      if (width > 2) {
        const d2 = a2[row] - t2;
        sum += f2 * d2 * d2;
        for (let c = 0; c < extra.length; c++) {
          const d = extra[c].values[row] - extra[c].target;
          sum += extra[c].factor * d * d;
        }
      }
    }
    // NaN: the sound lacks a targeted value.
    if (Number.isNaN(sum)) continue;
    const id = table.idAt(row);
    if (id === exclude || (passes !== undefined && !passes(id))) continue;
    total++;
    if (sum <= threshold) {
      top.offer(id, sum);
      threshold = top.threshold;
    }
  }
  return total;
}
