import { beforeAll, describe, expect, it } from 'vitest';
import { peaksAt } from '../testing/peaks.ts';
import { columnMeans, referenceRecording } from '../testing/reference-recording.ts';
import { loadFloat32Fft } from './fft-f32.ts';
import { createPeaks, findPeaks } from './peaks.ts';
import { HPCP_SIZE, harmonicContributions, hpcpFromPeaks, tonalFrames, tuningStep } from './tonal.ts';

beforeAll(() => loadFloat32Fft());

describe('HPCP as the reference computes tonal.hpcp', () => {
  it('spreads a peak over the bins within ½ semitone with cosine weights, bin 0 = A 440 Hz, max 1', () => {
    const hpcp = new Float32Array(36);
    // A peak 1/6 semitone (half a bin) above C (bin 9): bins 9 and 10 share it, bins 8 and 11 sit on the
    // window's edge (½ semitone away, weight cos(π/2) = 0).
    hpcpFromPeaks(peaksAt([440 * 2 ** ((3 + 1 / 6) / 12)]), hpcp);
    expect(hpcp[9]).toBeCloseTo(1, 5);
    expect(hpcp[10]).toBeCloseTo(1, 5);
    expect(hpcp[8]).toBeCloseTo(0, 10);
    expect(hpcp[11]).toBeCloseTo(0, 10);
    expect(hpcp[7] + hpcp[12] + hpcp[0]).toBe(0);
    // A peak a tenth of a bin above A: weight cos(π·d) for the bins d semitones away, d < ½.
    hpcpFromPeaks(peaksAt([440 * 2 ** (0.1 / 36)]), hpcp);
    const w = (bins: number) => Math.cos((Math.PI * bins) / 3);
    expect(hpcp[0]).toBeCloseTo(1, 6);
    expect(hpcp[1]).toBeCloseTo(w(0.9) / w(0.1), 5);
    expect(hpcp[35]).toBeCloseTo(w(1.1) / w(0.1), 5);
    expect(hpcp[2] + hpcp[34]).toBe(0);
  });
  it('weighs peaks by magnitude², folds octaves, ignores peaks outside 20 Hz – 3.5 kHz, and stays 0 without peaks', () => {
    const hpcp = new Float32Array(36);
    hpcpFromPeaks(peaksAt([110, 220 * 2 ** (7 / 12), 19, 3600], [1, 0.5, 9, 9]), hpcp);
    expect(hpcp[0]).toBeCloseTo(1, 6);
    expect(hpcp[21]).toBeCloseTo(0.25, 6);
    // A peak on a bin centre also reaches its neighbours, a third of a semitone away: cos(π/3) = ½.
    expect(hpcp[1]).toBeCloseTo(0.5, 6);
    expect(hpcp.reduce((a, b) => a + b, 0)).toBeCloseTo(2 + 0.5, 5);
    hpcpFromPeaks(peaksAt([]), hpcp);
    expect(hpcp.every((v) => v === 0)).toBe(true);
  });
  it("keeps the key HPCP's squared-cosine window as a setting", () => {
    const hpcp = new Float32Array(36);
    const settings = { minHz: 40, maxHz: 5000, windowSemitones: 4 / 3, weight: 'squaredCosine' } as const;
    hpcpFromPeaks(peaksAt([110]), hpcp, settings);
    // A peak on a bin centre reaches the bins ⅓ semitone away with cos²(π·(1/3)/(4/3)) = ½.
    expect(hpcp[1]).toBeCloseTo(0.5, 6);
    expect(hpcp[35]).toBeCloseTo(0.5, 6);
    expect(hpcp[2]).toBeCloseTo(0, 10);
    expect(hpcp[3]).toBe(0);
  });
});

describe("HPCP harmonics as Essentia's HPCP counts them (the key extractor's four)", () => {
  it('folds partials 1–5 onto three pitch classes: the octaves add up, the fifth and the major third stay', () => {
    const table = harmonicContributions(4);
    expect(table.map((c) => c.semitone)).toHaveLength(3);
    expect(table[0]).toEqual({ semitone: 0, weight: 3 });
    expect(table[1].semitone).toBeCloseTo(12 * Math.log2(3) - 12, 9);
    expect(table[1].weight).toBe(1);
    // The fifth partial, 27.9 semitones up, is weighted 1 / (27.9 / 24).
    expect(table[2].semitone).toBeCloseTo(12 * Math.log2(5) - 24, 9);
    expect(table[2].weight).toBeCloseTo(24 / (12 * Math.log2(5)), 9);
  });
  it('adds a peak to its own bin and, weighted, to the fundamentals it may be a partial of; no scaling', () => {
    const hpcp = new Float32Array(12);
    // E (bin 7) at 2 × 330 Hz, magnitude 2: its own class E gets 4 × 3² (no neighbour: a 1-semitone window
    // on a bin centre reaches the next bins with cos(π/2) = 0); as a third partial, A gets 4 × 1² (on
    // bin 0 within a cent); as a fifth, the class 3.86 semitones under E (bin 3.14) gets
    // 4 × w² × cos(π × 0.14).
    const settings = {
      minHz: 25,
      maxHz: 3500,
      windowSemitones: 1,
      weight: 'cosine',
      harmonics: 4,
      normalize: false,
    } as const;
    hpcpFromPeaks(peaksAt([440 * 2 ** (7 / 12)], [2]), hpcp, settings);
    expect(hpcp[7]).toBeCloseTo(36, 4);
    const thirdPartialOffset = 12 * Math.log2(3) - 12 - 7; // the third partial sits 0.02 semitone above E
    expect(hpcp[0]).toBeCloseTo(4 * Math.cos(Math.PI * Math.abs(thirdPartialOffset)), 4);
    const third = 7 - (12 * Math.log2(5) - 24);
    const w = 24 / (12 * Math.log2(5));
    expect(hpcp[3]).toBeCloseTo(4 * w * w * Math.cos(Math.PI * (third - 3)), 4);
    expect(hpcp.reduce((a, b) => a + b, 0)).toBeCloseTo(hpcp[0] + hpcp[3] + hpcp[7], 6);
  });
});

describe('tonal.hpcp on real recordings, against the reference extractor', () => {
  // Golden values: the per-bin mean, entropy and crest native Essentia wrote for these recordings. A
  // kick (the lowest partial near the 20 Hz edge), a hi-hat (noise) and a pitched hum.
  it.each(['bd_808', 'hat_cab', 'ambi_glass_hum'])(
    '%s: every bin of the mean HPCP, hpcp_entropy and hpcp_crest agree to a thousandth of their value',
    async (name) => {
      const { reference, samples, sampleRate } = await referenceRecording(name);
      const { series } = tonalFrames(samples, sampleRate);
      const tonal = reference.tonal as Record<string, { mean: number[] | number }>;
      const expected = tonal.hpcp.mean as number[];
      const means = columnMeans(series.vector('hpcp', HPCP_SIZE), HPCP_SIZE);
      means.forEach((m, b) => {
        expect(Math.abs(m - expected[b])).toBeLessThanOrEqual(1e-3 * expected[b] + 1e-6);
      });
      for (const key of ['hpcp_entropy', 'hpcp_crest']) {
        const want = tonal[key].mean as number;
        const [got] = columnMeans(series.scalar(key), 1);
        expect(Math.abs(got - want)).toBeLessThanOrEqual(1e-3 * want);
      }
    },
    60_000,
  );
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
  it('ends the search at the first peak above maxHz, so it never displaces a smaller one below', () => {
    const mag = new Float32Array(64).fill(0.01);
    mag[10] = 0.2; // 100 Hz
    mag[30] = 0.5; // 300 Hz
    mag[50] = 0.9; // 500 Hz, interpolated towards its louder right neighbour, above 500 Hz
    mag[51] = 0.5;
    const peaks = createPeaks(2);
    findPeaks(mag, 10, 1e-5, 40, 500, peaks, true);
    expect(Array.from(peaks.frequencies.subarray(0, peaks.count))).toEqual([100, 300]);
    findPeaks(mag, 10, 1e-5, 40, 500, peaks);
    expect(peaks.frequencies[1]).toBeGreaterThan(500);
  });
});
