import { describe, expect, it } from 'vitest';
import {
  formatWholeTreeReport,
  leafFamily,
  leafRow,
  leafValue,
  numericLeaves,
  wholeTreeReport,
} from './whole-tree-report.ts';

const reference = (x: number) => ({
  metadata: { audio_properties: { length: x } },
  lowlevel: { hfc: { mean: x, min: 0 }, mfcc: { mean: [x, -x] } },
  rhythm: { bpm: 120 + x, onset_times: [0.1, 0.2], bpm_histogram: [x] },
  tonal: { key: { key: 'C', strength: x / 10 } },
});

describe('whole-tree parity report', () => {
  it('lists every numeric leaf of the reference: each statistic and vector dimension, no metadata or event lists', () => {
    expect(numericLeaves(reference(1))).toEqual([
      'lowlevel.hfc.mean',
      'lowlevel.hfc.min',
      'lowlevel.mfcc.mean[0]',
      'lowlevel.mfcc.mean[1]',
      'rhythm.bpm',
      'tonal.key.strength',
    ]);
  });

  it('reads a leaf in both spellings and names its descriptor', () => {
    expect(leafValue(reference(2), 'lowlevel.mfcc.mean[1]')).toBe(-2);
    expect(leafValue({ tonal: { key_strength: 0.3 } }, 'tonal.key.strength', true)).toBe(0.3);
    expect(leafFamily('lowlevel.mfcc.mean[1]')).toBe('lowlevel.mfcc');
    expect(leafFamily('lowlevel.loudness_ebu128.integrated')).toBe('lowlevel.loudness_ebu128.integrated');
    expect(leafFamily('rhythm.bpm')).toBe('rhythm.bpm');
  });

  it('scores each leaf: same ranks and values pass, reversed ranks and a missing leaf fail', () => {
    const xs = [1, 2, 3, 4, 5, 6, 7, 8];
    const pairs = xs.map((x) => ({
      reference: reference(x),
      ours: {
        lowlevel: { hfc: { mean: x, min: 0 }, mfcc: { mean: [x, x] } },
        rhythm: {},
        tonal: { key_strength: x / 10 },
      },
    }));
    const report = wholeTreeReport(pairs);
    const byName = new Map(report.leaves.map((r) => [r.name, r]));
    expect(byName.get('lowlevel.hfc.mean')?.pass).toBe(true);
    expect(byName.get('tonal.key.strength')?.pass).toBe(true);
    // The reference's constant 0 matched by ours.
    expect(byName.get('lowlevel.hfc.min')).toMatchObject({ pass: true, constantReference: true });
    expect(byName.get('lowlevel.mfcc.mean[1]')?.rho).toBeCloseTo(-1);
    expect(byName.get('rhythm.bpm')).toMatchObject({ n: 0, pass: false });
    expect(report.shareBoth).toBeCloseTo(4 / 6);
    const table = formatWholeTreeReport(report);
    expect(table).toContain('whole tree: 6 numeric leaves over 8 recordings');
    expect(table).toMatch(/lowlevel\.mfcc\.mean\[1\]\s+8\s+-1\.000/);
  });

  it('fails a constant reference leaf that ours does not reproduce', () => {
    const pairs = [0, 1, 2].map((x) => ({ reference: { a: { b: 5 } }, ours: { a: { b: 5 + x } } }));
    expect(leafRow('a.b', pairs)).toMatchObject({ pass: false, constantReference: true });
  });
});
