import { describe, expect, it } from 'vitest';
import {
  adaptiveThreshold,
  beatPeriods,
  beatTransitions,
  decodeBeats,
  gaussianPdf,
  normalizeToMax,
  periodGeometry,
  periodObservation,
  tempoTapDegara,
  tempoWeights,
  unbiasedAutocorrelation,
  upsampleLinear,
  viterbiPeriods,
  windowCount,
} from './tempo-tap-degara.ts';

/** The reference's ODF rate after doubling the 1024-hop functions. */
const RATE = (44100 / 1024) * 2;

/** An impulse train with period `period` frames (first pulse at `offset`), `n` frames long. */
function train(period: number, n: number, offset = 10): Float32Array {
  const out = new Float32Array(n);
  for (let t = offset; t < n; t += period) out[Math.round(t)] = 1;
  return out;
}

describe('helpers', () => {
  it('normalizeToMax divides by the maximum and leaves zeros alone', () => {
    expect([...normalizeToMax(Float32Array.of(1, 4, 2))]).toEqual([0.25, 1, 0.5]);
    expect([...normalizeToMax(new Float32Array(3))]).toEqual([0, 0, 0]);
  });

  it('upsampleLinear passes through the originals', () => {
    expect([...upsampleLinear(Float32Array.of(0, 1, 0), 2)]).toEqual([0, 0.5, 1, 0.5, 0]);
  });

  it('adaptiveThreshold keeps what stands above the centred mean (edges repeated)', () => {
    const out = adaptiveThreshold([0, 0, 3, 0, 0], 1);
    expect([...out]).toEqual([0, 0, 2, 0, 0]);
    expect([...adaptiveThreshold([2, 2, 2], 4)]).toEqual([0, 0, 0]);
  });

  it('the tempo prior peaks at 120 BPM and sums to 1', () => {
    const w = tempoWeights(128, RATE);
    let peak = 0;
    for (let i = 1; i < w.length; i++) if (w[i] > w[peak]) peak = i;
    expect((60 * RATE) / (peak + 1)).toBeCloseTo(120, -1);
    expect(w.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
  });

  it('unbiasedAutocorrelation divides each lag by its overlap', () => {
    const r = unbiasedAutocorrelation(Float64Array.of(1, 1, 1, 1));
    expect([...r]).toEqual([1, 1, 1, 1]);
  });

  it('the reference geometry: 512-frame windows every 128, periods 24…127 frames at 86 Hz', () => {
    const g = periodGeometry(RATE);
    expect(g).toEqual({ frame: 512, hop: 128, minIndex: 3, maxIndex: 126, minUser: 23, maxUser: 127 });
    expect(windowCount(100, 512, 128)).toBe(1);
    expect(windowCount(640, 512, 128)).toBe(2);
    expect(windowCount(641, 512, 128)).toBe(3);
  });

  it('gaussianPdf is centred and symmetric', () => {
    const g = gaussianPdf(2, 1);
    expect(g.length).toBe(17);
    expect(g[8]).toBeCloseTo(1 / (2 * Math.sqrt(2 * Math.PI)), 12);
    expect(g[3]).toBe(g[13]);
  });
});

describe('beat periods', () => {
  it('a window of a 40-frame pulse train has its salience at period 40 (± a lag: the prior tilts it)', () => {
    const g = periodGeometry(RATE);
    const frame = new Float64Array(512);
    for (let t = 5; t < 512; t += 40) frame[t] = 1;
    const obs = periodObservation(unbiasedAutocorrelation(frame), tempoWeights(g.hop, RATE), g);
    let peak = 0;
    for (let i = 1; i < obs.length; i++) if (obs[i] > obs[peak]) peak = i;
    expect(Math.abs(peak + 1 - 40)).toBeLessThanOrEqual(1);
  });

  it('the Viterbi path follows a steady observation and keeps to 28…108 frames', () => {
    const obs = Array.from({ length: 5 }, () => {
      const o = new Float64Array(128);
      o[49] = 1;
      return o;
    });
    expect(viterbiPeriods(obs, tempoWeights(128, RATE), RATE)).toEqual([49, 49, 49, 49, 49]);
  });

  it('beatPeriods of a 120 BPM train are 0.5 s in every window', () => {
    const period = (60 / 120) * RATE;
    const { periods, ends } = beatPeriods(train(period, 20 * Math.round(RATE)), RATE);
    expect(periods.length).toBe(ends.length);
    for (const p of periods) expect(Math.abs(p - 0.5)).toBeLessThan(1.5 / RATE);
  });
});

describe('beat decoding', () => {
  it('hazards follow the inter-beat pdf: near the period a beat is likely, far from it impossible', () => {
    const { toBeat, onward } = beatTransitions(0.5, 60, 1 / RATE, 2);
    const at = Math.round(0.5 * RATE) - 1;
    expect(toBeat[at]).toBeGreaterThan(toBeat[at - 3]);
    expect(toBeat[5]).toBe(Number.NEGATIVE_INFINITY);
    expect(onward[5]).toBe(0);
  });

  it('puts a beat on every pulse of a train at the given period', () => {
    const period = 43;
    // The first pulse one period in: the model starts just after a beat.
    const odf = train(period, 600, period - 1);
    const beats = decodeBeats(odf, { periods: [period / RATE], ends: [1e9] }, RATE, 1);
    const expected = [...odf.keys()].filter((i) => odf[i] > 0).map((i) => i / RATE);
    expect(beats.length).toBe(expected.length);
    beats.forEach((b, i) => {
      expect(b).toBeCloseTo(expected[i], 9);
    });
  });

  it('tempoTapDegara tracks a 100 BPM train given at half the rate (doubled by interpolation)', () => {
    const rate = RATE / 2;
    const odf = train((60 / 100) * rate, 15 * Math.round(rate), 5);
    const beats = tempoTapDegara(odf, rate, 2);
    const intervals = beats.slice(1).map((t, i) => t - beats[i]);
    intervals.sort((a, b) => a - b);
    expect(60 / intervals[intervals.length >> 1]).toBeCloseTo(100, -1);
  });

  it('has no beats on an all-zero function', () => {
    expect(tempoTapDegara(new Float32Array(500), RATE)).toEqual([]);
  });
});
