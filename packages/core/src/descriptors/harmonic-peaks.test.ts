import { describe, expect, it } from 'vitest';
import { peaksAt } from '../testing/peaks.ts';
import {
  createPeaks,
  harmonicOddToEven,
  harmonicTristimulus,
  ODD_TO_EVEN_MAX,
  referenceHarmonicPeaks,
} from './peaks.ts';

function harmonicsOf(freqs: number[], amps: number[], pitch: number) {
  const out = createPeaks(20);
  referenceHarmonicPeaks(peaksAt(freqs, amps), pitch, out);
  return out;
}

function tristimulus(freqs: number[], amps: number[], pitch: number): number[] {
  const out = new Float32Array(3);
  harmonicTristimulus(harmonicsOf(freqs, amps, pitch), out, 0);
  return [...out];
}

describe('harmonic peaks as Essentia HarmonicPeaks gives them', () => {
  it('lists 20 harmonics, a missing one at its ideal frequency with magnitude 0; none without pitch or peaks', () => {
    const h = harmonicsOf([200, 610], [1, 0.5], 200);
    expect(h.count).toBe(20);
    expect([h.frequencies[0], h.frequencies[1], h.frequencies[2]]).toEqual([200, 400, 610]);
    expect([h.magnitudes[0], h.magnitudes[1], h.magnitudes[2]]).toEqual([1, 0, 0.5]);
    expect(harmonicsOf([200], [1], 0).count).toBe(0);
    expect(harmonicsOf([], [], 200).count).toBe(0);
  });
});

describe('tristimulus (Essentia Tristimulus on the harmonic peaks)', () => {
  it('splits the harmonic magnitudes (not energies) into h1, h2–h4 and h5 on', () => {
    // Magnitudes 4, 1, 1, 1, 2, 1 (h1…h6): Σ = 10.
    const t = tristimulus([100, 200, 300, 400, 500, 600], [4, 1, 1, 1, 2, 1], 100);
    expect(t[0]).toBeCloseTo(0.4, 6);
    expect(t[1]).toBeCloseTo(0.3, 6);
    expect(t[2]).toBeCloseTo(0.3, 6);
  });
  it('is all zeros without a pitch, without peaks, or when no peak is a harmonic', () => {
    expect(tristimulus([100, 200], [1, 1], 0)).toEqual([0, 0, 0]);
    expect(tristimulus([], [], 100)).toEqual([0, 0, 0]);
    expect(tristimulus([150, 250], [1, 1], 100)).toEqual([0, 0, 0]);
  });
});

describe('odd-to-even harmonic energy ratio (Essentia OddToEvenHarmonicEnergyRatio)', () => {
  it('divides the energy at list positions 1, 3, 5… (harmonics 2, 4, 6) by that at 0, 2, 4… (harmonics 1, 3, 5)', () => {
    // h1 = 1, h2 = 2, h3 = 1: (2²) / (1² + 1²) = 2.
    expect(harmonicOddToEven(harmonicsOf([100, 200, 300], [1, 2, 1], 100))).toBeCloseTo(2, 9);
    // Only odd harmonics: no energy at odd positions.
    expect(harmonicOddToEven(harmonicsOf([100, 300], [1, 1], 100))).toBe(0);
  });
  it('is 1 with no harmonic energy (silence, no pitch, no peak near a harmonic) and the 1000 cap when harmonics 1, 3, 5… are all missing', () => {
    expect(harmonicOddToEven(harmonicsOf([], [], 100))).toBe(1);
    expect(harmonicOddToEven(harmonicsOf([200], [1], 0))).toBe(1);
    expect(harmonicOddToEven(harmonicsOf([150, 250], [1, 1], 100))).toBe(1);
    expect(harmonicOddToEven(harmonicsOf([200, 400], [1, 1], 100))).toBe(ODD_TO_EVEN_MAX);
    expect(harmonicOddToEven(harmonicsOf([100, 200], [1e-3, 1], 100))).toBe(ODD_TO_EVEN_MAX);
  });
});
