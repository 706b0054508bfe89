import { describe, expect, it } from 'vitest';
import { peaksAt } from '../testing/peaks.ts';
import { createPeaks, findPeaks } from './peaks.ts';
import { hpcpFromPeaks, tuningStep } from './tonal.ts';

describe('HPCP as the reference computes tonal.hpcp', () => {
  it('spreads a peak over the bins within 2/3 semitone with cos² weights, bin 0 = A 440 Hz, max 1', () => {
    const hpcp = new Float32Array(36);
    // A peak 1/6 semitone (half a bin) above C (bin 9): bins 8, 9, 10 and 11 lie within 2/3 semitone.
    hpcpFromPeaks(peaksAt([440 * 2 ** ((3 + 1 / 6) / 12)]), hpcp);
    const weight = (bins: number) => Math.cos((Math.PI * (bins / 3)) / (4 / 3)) ** 2;
    expect(hpcp[9]).toBeCloseTo(1, 5);
    expect(hpcp[10]).toBeCloseTo(1, 5);
    expect(hpcp[8]).toBeCloseTo(weight(1.5) / weight(0.5), 5);
    expect(hpcp[11]).toBeCloseTo(weight(1.5) / weight(0.5), 5);
    expect(hpcp[7] + hpcp[12] + hpcp[0]).toBe(0);
  });
  it('weighs peaks by magnitude², folds octaves, ignores peaks outside 40 Hz – 5 kHz, and stays 0 without peaks', () => {
    const hpcp = new Float32Array(36);
    hpcpFromPeaks(peaksAt([110, 220 * 2 ** (7 / 12), 30, 6000], [1, 0.5, 9, 9]), hpcp);
    expect(hpcp[0]).toBeCloseTo(1, 6);
    expect(hpcp[21]).toBeCloseTo(0.25, 6);
    // A peak on a bin centre also reaches its neighbours, a third of a semitone away: cos²(π/4) = ½.
    expect(hpcp[1]).toBeCloseTo(0.5, 6);
    expect(hpcp.reduce((a, b) => a + b, 0)).toBeCloseTo(2 + 0.5, 5);
    hpcpFromPeaks(peaksAt([]), hpcp);
    expect(hpcp.every((v) => v === 0)).toBe(true);
  });
});

describe('tuning frequency as Essentia TuningFrequency tracks it', () => {
  const run = (frames: [number[], number[]][]) => {
    const global = new Float64Array(100);
    const frame = new Float64Array(100);
    return frames.map(([f, m]) => tuningStep(peaksAt(f, m), global, frame));
  };
  it('answers 440 Hz before any peak and keeps the estimate through frames without peaks', () => {
    expect(run([[[], []]])).toEqual([440]);
    const cents10 = 440 * 2 ** (10 / 1200);
    const out = run([
      [
        [cents10, 2 * cents10],
        [1, 1],
      ],
      [[], []],
    ]);
    expect(out[0]).toBeCloseTo(cents10, 6);
    expect(out[1]).toBeCloseTo(cents10, 6);
  });
  it("lets each frame's winning deviation gain the frame's peak energy: one loud frame outweighs two quiet ones", () => {
    const up = 440 * 2 ** (20 / 1200);
    const down = 440 * 2 ** (-10 / 1200);
    const out = run([
      [[down], [0.1]],
      [[down], [0.1]],
      [[up], [1]],
    ]);
    expect(out[1]).toBeCloseTo(down, 6);
    expect(out[2]).toBeCloseTo(up, 6);
  });
  it('reads a deviation below −35 cents as the next semitone, 100 cents up', () => {
    const low = 440 * 2 ** (-40 / 1200);
    expect(run([[[low], [1]]])[0]).toBeCloseTo(440 * 2 ** (60 / 1200), 6);
  });
});

describe('spectral peaks with the lower edge as Essentia PeakDetection checks it', () => {
  it('counts the first bin at or above minHz as a peak when the spectrum falls from it', () => {
    const mag = new Float32Array(64);
    for (let k = 0; k < 64; k++) mag[k] = 1 / (k + 1); // falls all the way: no interior peak
    mag[20] = 0.5; // one interior peak
    const peaks = createPeaks(8);
    findPeaks(mag, 10, 1e-5, 40, 500, peaks);
    expect(peaks.count).toBe(1);
    findPeaks(mag, 10, 1e-5, 40, 500, peaks, true);
    expect(peaks.count).toBe(2);
    expect(peaks.frequencies[0]).toBe(40);
    expect(peaks.magnitudes[0]).toBeCloseTo(1 / 5, 6);
    expect(peaks.frequencies[1]).toBeCloseTo(200, 0);
  });
});
