import { describe, expect, it } from 'vitest';
import { estimatePeriod, noveltyCurve, placeBeats, trackBeats } from './beat-tracker.ts';

const FPS = 44100 / 1024;

/** Onset strength of an impulse train: `bpm` pulses starting at `offsetS`, plus optional off-beats. */
function pulses(bpm: number, seconds: number, offsetS = 0, offBeat = 0): Float32Array {
  const out = new Float32Array(Math.round(seconds * FPS));
  const period = (60 / bpm) * FPS;
  for (let k = 0; ; k++) {
    const at = offsetS * FPS + k * period;
    if (Math.round(at) >= out.length) break;
    out[Math.round(at)] += 1;
    const off = Math.round(at + period / 2);
    if (offBeat > 0 && off < out.length) out[off] += offBeat;
  }
  return out;
}

describe('noveltyCurve', () => {
  it('removes a constant floor and scales to unit RMS', () => {
    const strength = pulses(120, 10).map((v) => v + 5);
    const novelty = noveltyCurve(strength, FPS);
    expect(Math.min(...novelty)).toBe(0);
    const rms = Math.sqrt(novelty.reduce((a, v) => a + v * v, 0) / novelty.length);
    expect(rms).toBeCloseTo(1, 5);
  });

  it('is all zero on silence', () => {
    expect(noveltyCurve(new Float32Array(500), FPS).every((v) => v === 0)).toBe(true);
  });
});

describe('estimatePeriod', () => {
  it.each([60, 90, 120, 150, 180, 200])('finds %i BPM in a click train', (bpm) => {
    const period = estimatePeriod(noveltyCurve(pulses(bpm, 20), FPS), FPS);
    expect(Math.abs((60 * FPS) / period - bpm)).toBeLessThan(0.02 * bpm);
  });

  it('keeps the quarter note when weaker off-beats (hats) sit between', () => {
    const period = estimatePeriod(noveltyCurve(pulses(80, 20, 0, 0.5), FPS), FPS);
    expect((60 * FPS) / period).toBeCloseTo(80, -0.5);
  });

  it('returns 0 without periodicity', () => {
    expect(estimatePeriod(new Float32Array(1000), FPS)).toBe(0);
  });
});

describe('placeBeats', () => {
  it('puts a beat on every pulse and none in the silence after them', () => {
    const strength = pulses(120, 12, 0.25);
    strength.fill(0, Math.round(8 * FPS));
    const novelty = noveltyCurve(strength, FPS);
    const beats = placeBeats(novelty, (60 / 120) * FPS);
    const pulsesAt = [...strength.keys()].filter((i) => strength[i] > 0);
    expect(beats).toEqual(pulsesAt);
  });

  it('bridges a missing pulse at the period', () => {
    const strength = pulses(100, 10);
    const gap = Math.round((5 * 60 * FPS) / 100);
    strength[gap] = 0;
    const beats = placeBeats(noveltyCurve(strength, FPS), (60 / 100) * FPS);
    expect(beats).toContain(gap);
  });
});

describe('trackBeats', () => {
  it('moves beats onto nearby onsets and reports the tempo', () => {
    const strength = pulses(120, 10);
    const onsets = Array.from({ length: 20 }, (_, k) => k * 0.5 - 0.004).map((t) => Math.max(0, t));
    const { bpm, ticks } = trackBeats(strength, onsets, 10, 44100, 1024);
    expect(Math.abs(bpm - 120)).toBeLessThan(2);
    expect(ticks).toEqual(onsets);
  });

  it('has no tempo under a second or on silence', () => {
    expect(trackBeats(pulses(120, 0.9), [], 0.9, 44100, 1024)).toEqual({ bpm: 0, ticks: [] });
    expect(trackBeats(new Float32Array(400), [], 9, 44100, 1024)).toEqual({ bpm: 0, ticks: [] });
  });
});
