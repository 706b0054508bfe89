import { beforeAll, describe, expect, it } from 'vitest';
import { gridTempo, trackBeats } from './beat-tracker.ts';
import { loadFloat32Fft } from './fft-f32.ts';

const SR = 44100;

beforeAll(() => loadFloat32Fft());

/** Decaying noise bursts (drum-like hits) at `bpm` for `seconds`, from `offsetS`. */
function hits(bpm: number, seconds: number, offsetS = 0.1): Float32Array {
  const out = new Float32Array(Math.round(seconds * SR));
  let seed = 1;
  const noise = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x3fffffff - 1;
  };
  for (let t = offsetS; t < seconds; t += 60 / bpm) {
    const at = Math.round(t * SR);
    for (let i = 0; i < 4000 && at + i < out.length; i++) out[at + i] += 0.8 * noise() * Math.exp(-i / 600);
  }
  return out;
}

describe('gridTempo', () => {
  it('is the mean tempo of the intervals near the most common 2-BPM bin', () => {
    // Three intervals at 0.5 s (120 BPM), one at 0.49 s (122.4 BPM), one stray at 1 s (60 BPM).
    const ticks = [0, 0.5, 1, 1.5, 1.99, 2.99];
    expect(gridTempo(ticks)).toBeCloseTo((3 * 120 + 60 / 0.49) / 4, 6);
  });

  it('is 0 without two beats', () => {
    expect(gridTempo([])).toBe(0);
    expect(gridTempo([1])).toBe(0);
  });
});

describe('trackBeats', () => {
  it.each([90, 128])('puts a beat on every hit of a %i BPM pattern and reports its tempo', (bpm) => {
    const signal = hits(bpm, 12);
    const { ticks, bpm: found } = trackBeats(signal, SR);
    expect(Math.abs(found - bpm)).toBeLessThan(2);
    const onsets: number[] = [];
    for (let t = 0.1; t < 12; t += 60 / bpm) onsets.push(t);
    // Beats sit on the hop grid (11.6 ms at 86 Hz) and carry the time of the frame's start, not its centre.
    const matched = onsets.filter((t) => ticks.some((b) => Math.abs(b - t) <= 0.05));
    expect(matched.length / onsets.length).toBeGreaterThanOrEqual(0.9);
  });

  it('lays a steady grid over a featureless sound, as the reference does', () => {
    const signal = new Float32Array(4 * SR);
    for (let i = 0; i < signal.length; i++) signal[i] = 0.3 * Math.sin((2 * Math.PI * 220 * i) / SR);
    const { ticks, bpm } = trackBeats(signal, SR);
    expect(ticks.length).toBeGreaterThanOrEqual(3);
    const intervals = ticks.slice(1).map((t, i) => t - ticks[i]);
    for (const d of intervals) expect(Math.abs(d - intervals[0])).toBeLessThanOrEqual(1.01 / 86.13);
    expect(bpm).toBeGreaterThanOrEqual(40);
    expect(bpm).toBeLessThanOrEqual(208);
  });

  it('with or without the information gain as a fourth candidate, the beats of a clear pattern', () => {
    const signal = hits(128, 12);
    const three = trackBeats(signal, SR, { infoGain: false });
    const four = trackBeats(signal, SR);
    expect(Math.abs(four.bpm - 128)).toBeLessThan(2);
    // Both grids sit on the hits; the chosen candidate may be a frame or two off the other.
    const matched = three.ticks.filter((t) => four.ticks.some((u) => Math.abs(u - t) <= 0.05));
    expect(matched.length / three.ticks.length).toBeGreaterThanOrEqual(0.9);
  });

  it('has no beats in digital silence', () => {
    expect(trackBeats(new Float32Array(5 * SR), SR).ticks).toEqual([]);
  });
});
