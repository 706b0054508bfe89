import { ValidationError } from '@earshot/common/errors';
import type { AnalysisTree } from './analysis-tree.ts';
import {
  canonicalDescriptorName,
  isConsolidatedColumn,
  parseDescriptorReference,
  VARIABLE_LENGTH_DESCRIPTORS,
} from './descriptor-names.ts';
import { UnknownDescriptorError } from './errors.ts';

/** Flat descriptor values of one sound: numbers and fixed-length numeric arrays, by any accepted name. */
export type DescriptorTableRow = Readonly<Record<string, unknown>>;

export interface ColumnStats {
  count: number;
  mean: number;
  /** Population standard deviation over the rows that have a value. */
  std: number;
}

interface Column {
  values: Float32Array;
  sum: number;
  sumSquares: number;
  count: number;
}

const MAX_ID = 0x7fffffff;

/** Decides which variant-A statistics `upsertAnalysis` stores: `length` is set for vectors. */
export type ColumnPolicy = (path: string, length?: number) => boolean;

const DERIVATIVE_STATISTICS = new Set(['dmean', 'dmean2', 'dvar', 'dvar2', 'median', 'stdev']);
const LONGEST_VECTOR = 40;
const VECTOR_VARIANCES = new Set(['lowlevel.mfcc.var', 'tonal.hpcp.var']);

/**
 * A full Essentia tree has about 4000 numbers per sound: stored whole, a million sounds would need
 * 16 GB. By default the table keeps what content search and descriptors_filter ask for in practice:
 * every plain number and the mean/var/min/max of scalar descriptors; for vectors of at most 40
 * dimensions the mean (plus the variances variant B exposes, mfcc_var and hpcp_var). That is about
 * 500 columns, 2 KB per sound.
 */
export const defaultColumnPolicy: ColumnPolicy = (path, length) => {
  const statistic = path.slice(path.lastIndexOf('.') + 1);
  if (length === undefined) return !DERIVATIVE_STATISTICS.has(statistic);
  return length <= LONGEST_VECTOR && (statistic === 'mean' || VECTOR_VARIANCES.has(path));
};

/**
 * Descriptor values of many sounds, column-wise: one Float32Array per scalar descriptor or per
 * dimension of a fixed-length vector (`lowlevel.mfcc.mean[3]`), NaN where a sound lacks it, and
 * the sound ids in an Int32Array, so a content-search scan touches only the columns it names.
 * Running sums per column keep the standardisation statistics exact under add/update/remove.
 * The catalogue fills it from stored analyses (`upsertAnalysis` for a variant-A tree, `upsert`
 * for flat values).
 */
export class DescriptorTable {
  private ids: Int32Array;
  private readonly rowOf = new Map<number, number>();
  private readonly columns = new Map<string, Column>();
  /**
   * The per-dimension columns of each vector descriptor, by canonical name (their count is the
   * vector's fixed length); scalars are absent.
   */
  private readonly dimensionColumns = new Map<string, Column[]>();
  private readonly scalars = new Set<string>();
  /**
   * Dotted names of the string leaves seen in analysis trees (`tonal.key_key`): not columns (no
   * distance to a key name), but fixed-length descriptors a content filter may name.
   */
  private readonly labels = new Set<string>();
  private readonly canonicalNames = new Map<string, string>();
  private rows = 0;
  private changes = 0;

  private readonly keepColumn: ColumnPolicy;

  constructor(options: { capacity?: number; keepColumn?: ColumnPolicy } = {}) {
    this.ids = new Int32Array(Math.max(16, options.capacity ?? 1024));
    this.keepColumn = options.keepColumn ?? defaultColumnPolicy;
  }

  get size(): number {
    return this.rows;
  }

  has(id: number): boolean {
    return this.rowOf.has(id);
  }

  /**
   * Changes whenever a sound is added, changed or removed: answers and row sets computed from the
   * table stay valid until it moves.
   */
  get version(): number {
    return this.changes;
  }

  /**
   * The rows of the given sounds (those the table holds), ascending, so a scan over them walks the
   * columns forwards. Valid until `version` changes (removals move rows).
   */
  rowsOf(ids: Iterable<number>): Int32Array {
    const rows: number[] = [];
    for (const id of ids) {
      const row = this.rowOf.get(id);
      if (row !== undefined) rows.push(row);
    }
    return Int32Array.from(rows).sort();
  }

  /** The row holding a sound, or -1. */
  rowIndexOf(id: number): number {
    return this.rowOf.get(id) ?? -1;
  }

  /** Ids in row order (row i holds idAt(i)); rows move when others are removed. */
  idAt(row: number): number {
    return this.ids[row];
  }

  /**
   * Every descriptor name the table holds: scalars, and vectors by their base name; `labels` are the
   * string leaves its analysis trees had (names only).
   */
  descriptorNames(): {
    scalars: string[];
    vectors: Array<{ name: string; length: number }>;
    labels: string[];
  } {
    return {
      scalars: [...this.scalars].sort(),
      vectors: [...this.dimensionColumns]
        .map(([name, columns]) => ({ name, length: columns.length }))
        .sort((a, b) => a.name.localeCompare(b.name)),
      labels: [...this.labels].sort(),
    };
  }

  /** Adds a sound or replaces all its values (descriptors it no longer has become missing). */
  upsert(id: number, values: DescriptorTableRow): void {
    if (!Number.isInteger(id) || id < 1 || id > MAX_ID) {
      throw new ValidationError(`Sound id must be a positive integer below 2^31, got ${id}`);
    }
    const cells = this.cellsOf(values);
    this.changes++;
    let row = this.rowOf.get(id);
    if (row === undefined) {
      row = this.appendRow(id);
    } else {
      for (const column of this.columns.values()) this.setCell(column, row, Number.NaN);
    }
    for (let i = 0; i < cells.columns.length; i++) this.setCell(cells.columns[i], row, cells.values[i]);
  }

  /**
   * Adds a sound from its variant-A analysis tree, keeping the statistics `keepColumn` accepts
   * (default: `defaultColumnPolicy`), and from its consolidated (variant B) record the numbers
   * whose names are columns of their own (`isConsolidatedColumn`: `pitch`, `brightness`), so a
   * B name in a target compares the value the sound record shows under it.
   */
  upsertAnalysis(id: number, analysis: AnalysisTree, consolidated?: Readonly<Record<string, unknown>>): void {
    const keep = this.keepColumn;
    const flat: Record<string, number | number[]> = {};
    const walk = (node: unknown, path: string) => {
      if (typeof node === 'number') {
        if (Number.isFinite(node) && keep(path)) flat[path] = node;
      } else if (typeof node === 'string') {
        if (path) this.labels.add(path);
      } else if (Array.isArray(node)) {
        if (
          node.length > 0 &&
          !VARIABLE_LENGTH_DESCRIPTORS.has(path) &&
          keep(path, node.length) &&
          node.every((v) => typeof v === 'number')
        ) {
          flat[path] = node as number[];
        }
      } else if (node !== null && typeof node === 'object') {
        for (const [key, child] of Object.entries(node)) {
          if (path === '' && key === 'metadata') continue;
          walk(child, path ? `${path}.${key}` : key);
        }
      }
    };
    walk(analysis, '');
    if (consolidated) {
      for (const [name, value] of Object.entries(consolidated)) {
        if (typeof value === 'number' && Number.isFinite(value) && isConsolidatedColumn(name)) {
          flat[name] = value;
        }
      }
    }
    this.upsert(id, flat);
  }

  remove(id: number): boolean {
    const row = this.rowOf.get(id);
    if (row === undefined) return false;
    this.changes++;
    const last = this.rows - 1;
    for (const column of this.columns.values()) {
      this.setCell(column, row, Number.NaN);
      if (row !== last) {
        column.values[row] = column.values[last];
        column.values[last] = Number.NaN;
      }
    }
    if (row !== last) {
      this.ids[row] = this.ids[last];
      this.rowOf.set(this.ids[row], row);
    }
    this.rowOf.delete(id);
    this.rows = last;
    return true;
  }

  /**
   * The column keys a descriptor reference addresses: a scalar's own key, one `[i]` dimension, or
   * every dimension of a vector. Unknown names, and `[i]` past a vector's end, are typed 400s.
   */
  resolve(written: string): string[] {
    const ref = parseDescriptorReference(written);
    const length = this.dimensionColumns.get(ref.name)?.length;
    if (length !== undefined) {
      if (ref.index === undefined) return Array.from({ length }, (_, i) => `${ref.name}[${i}]`);
      if (ref.index >= length) {
        throw new UnknownDescriptorError(written, `${ref.name} has ${length} dimensions (0–${length - 1})`);
      }
      return [`${ref.name}[${ref.index}]`];
    }
    if (this.scalars.has(ref.name)) {
      if (ref.index !== undefined)
        throw new UnknownDescriptorError(written, `${ref.name} is a single number`);
      return [ref.name];
    }
    throw new UnknownDescriptorError(written);
  }

  /** The Float32Array of a column key from `resolve` (valid for rows 0…size-1). */
  columnValues(key: string): Float32Array {
    const column = this.columns.get(key);
    if (!column) throw new UnknownDescriptorError(key);
    return column.values;
  }

  /** A sound's value in a column key, NaN when missing. */
  valueOf(id: number, key: string): number {
    const row = this.rowOf.get(id);
    return row === undefined ? Number.NaN : this.columnValues(key)[row];
  }

  stats(key: string): ColumnStats {
    const column = this.columns.get(key);
    if (!column) throw new UnknownDescriptorError(key);
    if (column.count === 0) return { count: 0, mean: Number.NaN, std: Number.NaN };
    const mean = column.sum / column.count;
    const variance = Math.max(0, column.sumSquares / column.count - mean * mean);
    return { count: column.count, mean, std: Math.sqrt(variance) };
  }

  /** Resolves every value to its column first, so a bad value leaves the table untouched. */
  private cellsOf(values: DescriptorTableRow): { columns: Column[]; values: number[] } {
    const columns: Column[] = [];
    const cells: number[] = [];
    for (const written in values) {
      const value = values[written];
      const name = this.canonical(written);
      if (typeof value === 'number') {
        if (this.dimensionColumns.has(name))
          throw new ValidationError(`Descriptor ${written} is a vector here, got a number`);
        this.scalars.add(name);
        if (Number.isFinite(value)) {
          columns.push(this.column(name));
          cells.push(value);
        }
      } else if (Array.isArray(value) && value.every((v) => typeof v === 'number')) {
        if (VARIABLE_LENGTH_DESCRIPTORS.has(name)) continue;
        const dims = this.vectorColumns(name, written, value.length);
        for (let i = 0; i < value.length; i++) {
          if (Number.isFinite(value[i])) {
            columns.push(dims[i]);
            cells.push(value[i]);
          }
        }
      }
      // Strings and booleans (key names, flags) are not content-search material: skipped.
    }
    return { columns, values: cells };
  }

  private canonical(written: string): string {
    let name = this.canonicalNames.get(written);
    if (name === undefined) {
      name = canonicalDescriptorName(written);
      this.canonicalNames.set(written, name);
    }
    return name;
  }

  /** The per-dimension columns of a vector descriptor, created on first sight with its fixed length. */
  private vectorColumns(name: string, written: string, length: number): Column[] {
    const known = this.dimensionColumns.get(name);
    if (known !== undefined) {
      if (known.length !== length) {
        throw new ValidationError(
          `Descriptor ${written} has ${length} values; the table holds it as fixed-length ${known.length}`,
        );
      }
      return known;
    }
    if (this.scalars.has(name))
      throw new ValidationError(`Descriptor ${written} is a number here, got an array`);
    const created = Array.from({ length }, (_, i) => this.column(`${name}[${i}]`));
    this.dimensionColumns.set(name, created);
    return created;
  }

  private appendRow(id: number): number {
    if (this.rows === this.ids.length) this.grow();
    const row = this.rows++;
    this.ids[row] = id;
    this.rowOf.set(id, row);
    return row;
  }

  private grow(): void {
    const capacity = this.ids.length * 2;
    const ids = new Int32Array(capacity);
    ids.set(this.ids);
    this.ids = ids;
    for (const column of this.columns.values()) {
      const values = new Float32Array(capacity).fill(Number.NaN);
      values.set(column.values);
      column.values = values;
    }
  }

  private column(key: string): Column {
    let column = this.columns.get(key);
    if (!column) {
      column = {
        values: new Float32Array(this.ids.length).fill(Number.NaN),
        sum: 0,
        sumSquares: 0,
        count: 0,
      };
      this.columns.set(key, column);
    }
    return column;
  }

  private setCell(column: Column, row: number, value: number): void {
    const old = column.values[row];
    if (!Number.isNaN(old)) {
      column.sum -= old;
      column.sumSquares -= old * old;
      column.count--;
    }
    column.values[row] = value;
    if (!Number.isNaN(value)) {
      // Sums use the stored float32 value so removing it later subtracts exactly what was added.
      const stored = column.values[row];
      column.sum += stored;
      column.sumSquares += stored * stored;
      column.count++;
    }
  }
}
