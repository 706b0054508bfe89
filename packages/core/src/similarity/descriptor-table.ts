import { ValidationError } from '@earshot/common';
import type { AnalysisTree } from './analysis-tree.ts';
import {
  canonicalDescriptorName,
  parseDescriptorReference,
  VARIABLE_LENGTH_DESCRIPTORS,
} from './descriptor-names.ts';
import { UnknownDescriptorError } from './errors.ts';

/** Flat descriptor values of one sound: numbers and fixed-length numeric arrays, by any accepted name. */
export type DescriptorValues = Readonly<Record<string, unknown>>;

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
  /** Fixed length of each vector descriptor, by canonical name; scalars are absent. */
  private readonly vectorLength = new Map<string, number>();
  private readonly scalars = new Set<string>();
  private rows = 0;

  constructor(options: { capacity?: number } = {}) {
    this.ids = new Int32Array(Math.max(16, options.capacity ?? 1024));
  }

  get size(): number {
    return this.rows;
  }

  has(id: number): boolean {
    return this.rowOf.has(id);
  }

  /** The row holding a sound, or -1. */
  rowIndexOf(id: number): number {
    return this.rowOf.get(id) ?? -1;
  }

  /** Ids in row order (row i holds idAt(i)); rows move when others are removed. */
  idAt(row: number): number {
    return this.ids[row];
  }

  /** Every descriptor name the table holds: scalars, and vectors by their base name. */
  descriptorNames(): { scalars: string[]; vectors: Array<{ name: string; length: number }> } {
    return {
      scalars: [...this.scalars].sort(),
      vectors: [...this.vectorLength]
        .map(([name, length]) => ({ name, length }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    };
  }

  /** Adds a sound or replaces all its values (descriptors it no longer has become missing). */
  upsert(id: number, values: DescriptorValues): void {
    if (!Number.isInteger(id) || id < 1 || id > MAX_ID) {
      throw new ValidationError(`Sound id must be a positive integer below 2^31, got ${id}`);
    }
    const cells = this.cellsOf(values);
    let row = this.rowOf.get(id);
    if (row === undefined) {
      row = this.appendRow(id);
    } else {
      for (const column of this.columns.values()) this.setCell(column, row, Number.NaN);
    }
    for (const [key, value] of cells) this.setCell(this.column(key), row, value);
  }

  /** Adds a sound from its variant-A analysis tree: every numeric statistic and fixed-length vector. */
  upsertAnalysis(id: number, analysis: AnalysisTree): void {
    const flat: Record<string, number | number[]> = {};
    const walk = (node: unknown, path: string) => {
      if (typeof node === 'number') {
        if (Number.isFinite(node)) flat[path] = node;
      } else if (Array.isArray(node)) {
        if (
          node.length > 0 &&
          !VARIABLE_LENGTH_DESCRIPTORS.has(path) &&
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
    this.upsert(id, flat);
  }

  remove(id: number): boolean {
    const row = this.rowOf.get(id);
    if (row === undefined) return false;
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
    const length = this.vectorLength.get(ref.name);
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

  private cellsOf(values: DescriptorValues): Array<[string, number]> {
    const cells: Array<[string, number]> = [];
    for (const [written, value] of Object.entries(values)) {
      const name = canonicalDescriptorName(written);
      if (typeof value === 'number') {
        if (this.vectorLength.has(name))
          throw new ValidationError(`Descriptor ${written} is a vector here, got a number`);
        if (Number.isFinite(value)) cells.push([name, value]);
        this.scalars.add(name);
      } else if (Array.isArray(value) && value.every((v) => typeof v === 'number')) {
        if (VARIABLE_LENGTH_DESCRIPTORS.has(name)) continue;
        if (this.scalars.has(name))
          throw new ValidationError(`Descriptor ${written} is a number here, got an array`);
        const known = this.vectorLength.get(name);
        if (known !== undefined && known !== value.length) {
          throw new ValidationError(
            `Descriptor ${written} has ${value.length} values; the table holds it as fixed-length ${known}`,
          );
        }
        this.vectorLength.set(name, value.length);
        value.forEach((v, i) => {
          if (Number.isFinite(v)) cells.push([`${name}[${i}]`, v]);
        });
      }
      // Strings and booleans (key names, flags) are not content-search material: skipped.
    }
    return cells;
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
