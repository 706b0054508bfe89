import { describe, expect, it } from 'vitest';
import { averageLoudness } from './average-loudness.ts';

const squeeze = (db: number) => 0.5 + 0.5 * Math.tanh(-1 + (2 * (db + 5)) / 3);

describe('average loudness as the reference computeAverageLoudness', () => {
  it('squeezes the mean level relative to the loudest frame: steady sounds near 0.88, mostly quiet ones near 0', () => {
    expect(averageLoudness([1, 1, 1, 1])).toBeCloseTo(squeeze(0), 9);
    // One loud frame among silent ones: the silent frames count at the −80 dB floor.
    const spiky = averageLoudness([1, 0, 0, 0]);
    expect(spiky).toBeCloseTo(squeeze(10 * Math.log10((1 + 3e-4) / 4)), 9);
    expect(spiky).toBeLessThan(averageLoudness([1, 0.5, 0.5, 0.5]));
  });
  it('reads Stevens loudness (energy^0.67), and treats a near-silent sound against a 1e-4 floor', () => {
    expect(averageLoudness([1, 0.25])).toBeCloseTo(squeeze(10 * Math.log10((1 + 0.25 ** 0.67) / 2)), 9);
    expect(averageLoudness([1e-12, 1e-12])).toBeCloseTo(squeeze(-40), 9);
    expect(averageLoudness([])).toBe(0);
  });
});
