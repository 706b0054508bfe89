import { describe, expect, it } from 'vitest';
import { peaksAt } from '../testing/peaks.ts';
import { referenceInharmonicity } from './peaks.ts';

describe('inharmonicity (Essentia HarmonicPeaks + Inharmonicity)', () => {
  it('is 0 for exact harmonics, and for no pitch or no peaks', () => {
    expect(referenceInharmonicity(peaksAt([200, 400, 600, 800]), 200)).toBeCloseTo(0, 12);
    expect(referenceInharmonicity(peaksAt([200, 400]), 0)).toBe(0);
    expect(referenceInharmonicity(peaksAt([]), 200)).toBe(0);
  });

  it('measures against the first harmonic peak, not the pitch: Σ|f − round(f/f1)·f1|·a² / (f1·Σa²)', () => {
    // f1 = 210: 410 is 10 Hz from 2·210, 610 is 20 Hz from 3·210 → (10 + 20) / (3 · 210).
    expect(referenceInharmonicity(peaksAt([210, 410, 610]), 200)).toBeCloseTo(30 / 630, 9);
    // Energy weights: the louder off-harmonic partial counts more.
    expect(referenceInharmonicity(peaksAt([200, 410], [1, 3]), 200)).toBeCloseTo((10 * 9) / (200 * 10), 9);
  });

  it('keeps per harmonic the peak nearest to it and ignores peaks more than 0.2 of a harmonic number away', () => {
    expect(referenceInharmonicity(peaksAt([200, 500, 800]), 200)).toBeCloseTo(0, 12);
    // 395 (0.025 off) beats 420 (0.1 off) for the second harmonic.
    expect(referenceInharmonicity(peaksAt([200, 395, 420]), 200)).toBeCloseTo(5 / 400, 9);
  });

  it('is 1 when no peak lies near any harmonic, as the reference gives for an empty energy sum', () => {
    expect(referenceInharmonicity(peaksAt([310, 530]), 200)).toBe(1);
    // A pitch far above every peak (noise, clicks) finds no harmonic either.
    expect(referenceInharmonicity(peaksAt([300, 900, 2000]), 8000)).toBe(1);
  });
});
