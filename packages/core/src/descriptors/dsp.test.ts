import { midiToNoteName } from '@earshot/common';
import { describe, expect, it } from 'vitest';
import { ebuR128 } from './loudness.ts';
import { frequencyToMidi } from './pitch.ts';
import { decrease, flatnessDb, moments, rolloff } from './spectral-shape.ts';

const SR = 44100;

function sine(freq: number, seconds: number, amplitude: number): Float32Array {
  return Float32Array.from(
    { length: Math.round(seconds * SR) },
    (_, i) => amplitude * Math.sin((2 * Math.PI * freq * i) / SR),
  );
}

describe('EBU R128 loudness', () => {
  it('reads a 1 kHz sine at −20 dBFS peak as −23.0 LUFS (BS.1770: full-scale 1 kHz sine = −3.01 LUFS)', () => {
    const r = ebuR128(sine(1000, 5, 0.1), SR);
    expect(r.integrated).toBeCloseTo(-23.01, 1);
    expect(r.loudnessRange).toBeLessThan(0.1);
  });

  it('gates digital silence to −70 LUFS without NaN', () => {
    const r = ebuR128(new Float32Array(SR * 2), SR);
    expect(r.integrated).toBe(-70);
    expect(r.loudnessRange).toBe(0);
    expect(Array.from(r.momentary).every((v) => v === -70)).toBe(true);
  });

  it('measures the loudness range of a 10 dB step as about 10 LU', () => {
    const quiet = sine(1000, 10, 0.05);
    const loud = sine(1000, 10, 0.05 * 10 ** (10 / 20));
    const both = new Float32Array(quiet.length + loud.length);
    both.set(quiet);
    both.set(loud, quiet.length);
    expect(ebuR128(both, SR).loudnessRange).toBeGreaterThan(9);
    expect(ebuR128(both, SR).loudnessRange).toBeLessThan(10.5);
  });
});

describe('note names', () => {
  it('names notes in scientific pitch notation with sharps', () => {
    expect(midiToNoteName(frequencyToMidi(440))).toBe('A4');
    expect(midiToNoteName(frequencyToMidi(27.5))).toBe('A0');
    expect(midiToNoteName(frequencyToMidi(4186.01))).toBe('C8');
    expect(midiToNoteName(61)).toBe('C#4');
  });
});

describe('spectral shape', () => {
  it('puts the centroid of a single bin on that bin and gives it no spread', () => {
    const x = new Float32Array(11);
    x[4] = 1;
    const m = moments(x, 10);
    expect(m.centroid).toBeCloseTo(4, 12);
    expect(m.spread).toBe(0);
  });

  it('tells a flat spectrum (0) from a single peak (1) in Essentia’s flatness_db', () => {
    expect(flatnessDb(new Float32Array(64).fill(1))).toBeCloseTo(0, 6);
    const peak = new Float32Array(64).fill(1e-9);
    peak[10] = 1;
    expect(flatnessDb(peak)).toBe(1);
  });

  it('gives flatness_db as its definition, one logarithm per bin, on spectra of every level', () => {
    const definition = (x: Float32Array) => {
      let logSum = 0;
      let sum = 0;
      for (const v of x) {
        logSum += Math.log(Math.max(v, 1e-30));
        sum += v;
      }
      const db = -10 * Math.log10(Math.exp(logSum / x.length) / (sum / x.length));
      return Math.min(1, Math.max(0, db / 60));
    };
    // A decaying, rippled spectrum with exact zeros (floored at 1e-30) and a loud peak: products of its
    // values leave the double range within a few dozen bins either way.
    for (const level of [1e-12, 1e-3, 1, 1e4]) {
      const x = Float32Array.from({ length: 1025 }, (_, k) =>
        k % 97 === 5 ? 0 : level * Math.exp(-k / 40) * (1.5 + Math.sin(k * 0.7)),
      );
      x[300] = level * 1e3;
      const expected = definition(x);
      expect(expected).toBeGreaterThan(0);
      expect(expected).toBeLessThan(1);
      expect(Math.abs(flatnessDb(x) - expected)).toBeLessThan(1e-12);
    }
  });

  it('finds the roll-off where 85% of the power lies', () => {
    const power = Float32Array.from([1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
    expect(rolloff(power, 100)).toBe(800);
  });

  it('gives a negative decrease for energy sitting low', () => {
    expect(decrease(Float32Array.from([4, 3, 2, 1]), 3)).toBeCloseTo(-1, 12);
  });
});
