import { describe, expect, it } from 'vitest';
import { barkToHz, dissonance, hzToBark, plompLeveltConsonance } from './dissonance.ts';
import { createPeaks, type Peaks } from './peaks.ts';

function peaksOf(pairs: [number, number][]): Peaks {
  const p = createPeaks(pairs.length);
  pairs.forEach(([f, a], i) => {
    p.frequencies[i] = f;
    p.magnitudes[i] = a;
  });
  p.count = pairs.length;
  return p;
}

describe('dissonance (Essentia Dissonance, Plomp & Levelt)', () => {
  it('Bark conversions invert each other', () => {
    for (const f of [100, 440, 1000, 5000, 9000]) expect(barkToHz(hzToBark(f))).toBeCloseTo(f, 6);
  });
  it('consonance is 1 at unison, lowest near a quarter of a critical band, 1 beyond 1.18 bands', () => {
    expect(plompLeveltConsonance(0)).toBeCloseTo(1, 3);
    expect(plompLeveltConsonance(0.25)).toBeLessThan(0.05);
    expect(plompLeveltConsonance(1.2)).toBe(1);
  });
  it('is 0 for one peak and for an octave, highest for two equal partials a quarter band apart', () => {
    expect(dissonance(peaksOf([[440, 1]]))).toBe(0);
    expect(
      dissonance(
        peaksOf([
          [440, 1],
          [880, 1],
        ]),
      ),
    ).toBeCloseTo(0, 3);
    // Critical bandwidth near 440 Hz ≈ 100 Hz: 25 Hz apart is the roughest.
    const rough = dissonance(
      peaksOf([
        [440, 1],
        [465, 1],
      ]),
    );
    expect(rough).toBeGreaterThan(0.45);
    expect(rough).toBeLessThanOrEqual(0.5);
    expect(
      dissonance(
        peaksOf([
          [440, 1],
          [445, 1],
        ]),
      ),
    ).toBeLessThan(rough);
  });
  it('does not depend on level and ignores peaks at or below 50 Hz as the rough one', () => {
    const a = dissonance(
      peaksOf([
        [300, 1],
        [320, 0.5],
        [1000, 0.2],
      ]),
    );
    const b = dissonance(
      peaksOf([
        [300, 0.01],
        [320, 0.005],
        [1000, 0.002],
      ]),
    );
    expect(b).toBeCloseTo(a, 9);
    expect(
      dissonance(
        peaksOf([
          [30, 1],
          [45, 1],
        ]),
      ),
    ).toBe(0);
  });
});
