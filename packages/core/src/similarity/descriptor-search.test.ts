import { NotFoundError } from '@earshot/common';
import { describe, expect, it } from 'vitest';
import { jitterAnalysis, referenceAnalyses, referenceNames } from '../testing/similarity.ts';
import { DescriptorTable } from './descriptor-table.ts';
import { DescriptorRowSet, parseDescriptorTarget, searchDescriptorTarget } from './descriptor-target.ts';
import { InvalidTargetError, UnknownDescriptorError } from './errors.ts';

// Sound i+1 is reference i; 1001+i is its near-duplicate.
function referenceTable(): DescriptorTable {
  const table = new DescriptorTable({ capacity: 16 });
  referenceNames.forEach((name, i) => {
    table.upsertAnalysis(i + 1, referenceAnalyses[name]);
    table.upsertAnalysis(1001 + i, jitterAnalysis(referenceAnalyses[name], 0.01, 50 + i));
  });
  return table;
}

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const std = (xs: number[]) => Math.sqrt(mean(xs.map((x) => (x - mean(xs)) ** 2)));

describe('DescriptorTable', () => {
  it('resolves dotted, flat variant-B, leading-dot and name[i] names to the same columns', () => {
    const table = referenceTable();
    expect(table.size).toBe(80);
    expect(table.resolve('lowlevel.spectral_centroid.mean')).toEqual(['lowlevel.spectral_centroid.mean']);
    expect(table.resolve('spectral_centroid')).toEqual(['lowlevel.spectral_centroid.mean']);
    expect(table.resolve('.lowlevel.spectral_centroid.mean')).toEqual(['lowlevel.spectral_centroid.mean']);
    expect(table.resolve('mfcc')).toHaveLength(13);
    expect(table.resolve('lowlevel.mfcc.mean[2]')).toEqual(['lowlevel.mfcc.mean[2]']);
    expect(table.resolve('mfcc[2]')).toEqual(['lowlevel.mfcc.mean[2]']);
    expect(table.valueOf(1, 'lowlevel.mfcc.mean[2]')).toBeCloseTo(
      (referenceAnalyses[referenceNames[0]] as any).lowlevel.mfcc.mean[2],
      3,
    );
  });

  it('keeps a variant-B name whose value is not the variant-A statistic as its own column, from the record', () => {
    const table = new DescriptorTable();
    const tree = {
      lowlevel: { pitch: { mean: 1119.9 }, spectral_centroid: { mean: 1000 } },
      rhythm: { bpm: 89.1 },
    };
    table.upsertAnalysis(1, tree, { pitch: 880.176, bpm: 89, spectral_centroid: 1000.001, brightness: 40 });
    // Voiced-frame pitch, rounded bpm and the timbral scores are the record's own values...
    expect(table.resolve('pitch')).toEqual(['pitch']);
    expect(table.valueOf(1, 'pitch')).toBeCloseTo(880.176, 3);
    expect(table.valueOf(1, 'lowlevel.pitch.mean')).toBeCloseTo(1119.9, 3);
    expect(table.valueOf(1, 'bpm')).toBe(89);
    expect(table.valueOf(1, 'brightness')).toBe(40);
    // ...and an alias of a variant-A statistic stays that statistic's column, not a second one.
    expect(table.resolve('spectral_centroid')).toEqual(['lowlevel.spectral_centroid.mean']);
    expect(table.valueOf(1, 'lowlevel.spectral_centroid.mean')).toBe(1000);
  });

  it('refuses unknown descriptors, out-of-range dimensions and variable-length lists', () => {
    const table = referenceTable();
    expect(() => table.resolve('lowlevel.foo')).toThrow(new UnknownDescriptorError('lowlevel.foo'));
    expect(() => table.resolve('lowlevel.foo')).toThrow('Unknown descriptor "lowlevel.foo"');
    expect(() => table.resolve('lowlevel.mfcc.mean[13]')).toThrow('has 13 dimensions (0–12)');
    expect(() => table.resolve('lowlevel.spectral_centroid.mean[0]')).toThrow('is a single number');
    expect(() => table.resolve('rhythm.onset_times')).toThrow(UnknownDescriptorError);
    expect(() => table.resolve('lowlevel.mfcc.mean; drop')).toThrow(UnknownDescriptorError);
    expect(() => table.upsert(5, { 'lowlevel.mfcc.mean': [1, 2, 3] })).toThrow('fixed-length 13');
  });

  it('keeps a bounded set of statistics from a full analysis by default', () => {
    const table = new DescriptorTable();
    table.upsertAnalysis(1, {
      lowlevel: {
        spectral_centroid: { mean: 1, var: 2, min: 0, max: 3, dmean: 4, dvar2: 5, median: 1, stdev: 1 },
        mfcc: { mean: [1, 2], var: [3, 4], dmean: [5, 6] },
        melbands96: { mean: new Array(96).fill(1) },
      },
      rhythm: { bpm: 120, onset_times: [0.1, 0.5], bpm_histogram: new Array(250).fill(0) },
      tonal: { key: { key: 'D', scale: 'major', strength: 0.8 } },
    });
    const { scalars, vectors, labels } = table.descriptorNames();
    // The key's name and scale are no columns, but content filters may name them.
    expect(labels).toEqual(['tonal.key.key', 'tonal.key.scale']);
    expect(() => table.resolve('tonal.key.key')).toThrow(UnknownDescriptorError);
    expect(scalars).toEqual([
      'lowlevel.spectral_centroid.max',
      'lowlevel.spectral_centroid.mean',
      'lowlevel.spectral_centroid.min',
      'lowlevel.spectral_centroid.var',
      'rhythm.bpm',
      'tonal.key.strength',
    ]);
    expect(vectors).toEqual([
      { name: 'lowlevel.mfcc.mean', length: 2 },
      { name: 'lowlevel.mfcc.var', length: 2 },
    ]);
    const everything = new DescriptorTable({ keepColumn: () => true });
    everything.upsertAnalysis(1, { lowlevel: { melbands96: { mean: new Array(96).fill(1) } } });
    expect(everything.resolve('lowlevel.melbands96.mean')).toHaveLength(96);
  });

  it('keeps standardisation statistics exact through add, update and remove', () => {
    const table = referenceTable();
    table.remove(1005);
    table.upsert(7, { 'lowlevel.spectral_centroid.mean': 1234 });
    const values = table.columnValues('lowlevel.spectral_centroid.mean').slice(0, table.size);
    const present = Array.from(values).filter((v) => !Number.isNaN(v));
    const stats = table.stats('lowlevel.spectral_centroid.mean');
    expect(stats.count).toBe(79);
    expect(present).toHaveLength(79);
    expect(stats.mean).toBeCloseTo(mean(present), 3);
    expect(stats.std).toBeCloseTo(std(present), 3);
    // The update replaced all of sound 7's values: it no longer has MFCCs.
    expect(table.valueOf(7, 'lowlevel.mfcc.mean[0]')).toBeNaN();
  });

  it('keeps each id with its own values when rows move on removal', () => {
    const table = referenceTable();
    const before = table.valueOf(1040, 'lowlevel.pitch_salience.mean');
    expect(table.remove(3)).toBe(true);
    expect(table.remove(3)).toBe(false);
    expect(table.has(3)).toBe(false);
    expect(table.valueOf(1040, 'lowlevel.pitch_salience.mean')).toBe(before);
    for (let row = 0; row < table.size; row++) expect(table.idAt(row)).not.toBe(3);
  });
});

describe('descriptor-target search', () => {
  const table = referenceTable();
  const names = [
    'lowlevel.spectral_centroid.mean',
    'lowlevel.pitch_salience.mean',
    'lowlevel.zerocrossingrate.mean',
  ];

  /** The documented distance, computed the slow way. */
  function expectedOrder(target: number[], exclude?: number, allow?: (id: number) => boolean) {
    const stds = names.map((name) => table.stats(name).std);
    const scored: Array<{ id: number; distance: number }> = [];
    for (let row = 0; row < table.size; row++) {
      const id = table.idAt(row);
      if (id === exclude || (allow && !allow(id))) continue;
      const d = Math.sqrt(
        names.reduce((s, n, c) => s + ((table.valueOf(id, n) - target[c]) / stds[c]) ** 2, 0),
      );
      scored.push({ id, distance: d });
    }
    return scored.sort((a, b) => a.distance - b.distance || a.id - b.id);
  }

  it('ranks by standardised distance on just the named descriptors', () => {
    const target = [2500, 0.3, 0.08];
    const text = names.map((n, c) => `${n}:${target[c]}`).join(' ');
    const { total, results } = searchDescriptorTarget(table, parseDescriptorTarget(text), { k: 10 });
    const expected = expectedOrder(target);
    expect(total).toBe(80);
    expect(results.map((r) => r.id)).toEqual(expected.slice(0, 10).map((r) => r.id));
    results.forEach((r, i) => {
      expect(r.distance).toBeCloseTo(expected[i].distance, 4);
    });
  });

  it('finds a sound first when the target is its own values, with either naming', () => {
    const id = 12;
    const values = names.map((n) => table.valueOf(id, n));
    const dotted = parseDescriptorTarget(names.map((n, c) => `${n}:${values[c]}`).join(' '));
    const flat = parseDescriptorTarget(
      `spectral_centroid:${values[0]} pitch_salience:${values[1]} zero_crossing_rate:${values[2]}`,
    );
    const a = searchDescriptorTarget(table, dotted, { k: 3 });
    expect(a.results[0]).toEqual({ id, distance: 0 });
    expect(searchDescriptorTarget(table, flat, { k: 3 })).toEqual(a);
  });

  it('targets a vector whole or one dimension of it', () => {
    const mfcc = Array.from({ length: 13 }, (_, i) => table.valueOf(20, `lowlevel.mfcc.mean[${i}]`));
    const whole = searchDescriptorTarget(
      table,
      parseDescriptorTarget(`lowlevel.mfcc.mean:${mfcc.join(',')}`),
    );
    expect(whole.results[0].id).toBe(20);
    expect(whole.results[1].id).toBe(1020);
    const one = searchDescriptorTarget(table, parseDescriptorTarget(`lowlevel.mfcc.mean[1]:${mfcc[1]}`), {
      k: 1,
    });
    expect(one.results[0]).toEqual({ id: 20, distance: 0 });
  });

  it('honours the filter predicate, offsets and counts', () => {
    const target = [1500, 0.5, 0.03];
    const parsed = parseDescriptorTarget(names.map((n, c) => `${n}:${target[c]}`).join(' '));
    const odd = (id: number) => id % 2 === 1;
    const filtered = searchDescriptorTarget(table, parsed, { k: 5, filter: odd });
    const expected = expectedOrder(target, undefined, odd);
    expect(filtered.total).toBe(expected.length);
    expect(filtered.results.map((r) => r.id)).toEqual(expected.slice(0, 5).map((r) => r.id));
    const page2 = searchDescriptorTarget(table, parsed, {
      k: 5,
      offset: 5,
      filter: new Set(expected.map((e) => e.id)),
    });
    expect(page2.results.map((r) => r.id)).toEqual(expected.slice(5, 10).map((r) => r.id));
  });

  it('answers the same with a prepared row set as with the id set, also after the table changes', () => {
    const local = referenceTable();
    const parsed = parseDescriptorTarget(`${names[0]}:1500 ${names[1]}:0.5`);
    // Ids in no particular order, some the table does not hold.
    const ids = [1033, 7, 1002, 5000, 40, 1, 1040, 12, 1011, 9999, 3];
    const rowSet = new DescriptorRowSet(ids);
    const same = () => {
      for (const offset of [0, 3]) {
        const bySet = searchDescriptorTarget(local, parsed, { k: 4, offset, filter: new Set(ids) });
        const byRows = searchDescriptorTarget(local, parsed, { k: 4, offset, filter: rowSet });
        expect(byRows).toEqual(bySet);
        expect(byRows.total).toBe(ids.filter((id) => local.has(id)).length);
      }
    };
    same();
    const before = local.version;
    local.remove(1); // the last row moves into row 0
    local.upsertAnalysis(5000, referenceAnalyses[referenceNames[3]]);
    expect(local.version).toBeGreaterThan(before);
    same();
    expect(
      searchDescriptorTarget(local, parsed, { k: 20, filter: rowSet }).results.map((r) => r.id),
    ).toContain(5000);
  });

  it('uses a sound’s own descriptors for a sound-id target, excluding that sound', () => {
    for (const id of [1, 9, 33]) {
      const { results, total } = searchDescriptorTarget(table, parseDescriptorTarget(String(id)), { k: 3 });
      expect(total).toBe(79);
      expect(results[0].id).toBe(id + 1000);
      expect(results.map((r) => r.id)).not.toContain(id);
    }
    const chosen = searchDescriptorTarget(table, parseDescriptorTarget(5), {
      k: 1,
      descriptors: ['mfcc'],
    });
    expect(chosen.results[0].id).toBe(1005);
  });

  it('refuses every bad target with its reason', () => {
    const attempt = (text: string) => () => searchDescriptorTarget(table, parseDescriptorTarget(text));
    expect(attempt('')).toThrow(InvalidTargetError);
    expect(attempt('pitch')).toThrow('Invalid target term "pitch": expected descriptor_name:value');
    expect(attempt('pitch:abc')).toThrow('Invalid target value "abc" for pitch: only numbers are allowed');
    expect(attempt('pitch:NaN')).toThrow(InvalidTargetError);
    // A quoted value is named whole, spaces and all.
    expect(attempt('bpm:120 tonality:"C major"')).toThrow(
      'Invalid target value "C major" for tonality: only numbers are allowed',
    );
    expect(attempt('tonality:"C major')).toThrow('the quote is never closed');
    expect(attempt('lowlevel.foo:1')).toThrow('Unknown descriptor "lowlevel.foo"');
    expect(attempt('lowlevel.mfcc.mean:1,2,3')).toThrow(
      'Target lowlevel.mfcc.mean has 13 dimensions, got 3 values',
    );
    expect(attempt('spectral_centroid:1,2')).toThrow('Target spectral_centroid takes one value, got 2');
    expect(attempt('999999')).toThrow(NotFoundError);
    expect(() =>
      searchDescriptorTarget(table, parseDescriptorTarget(5), { descriptors: ['lowlevel.nothing'] }),
    ).toThrow(UnknownDescriptorError);
  });
});
