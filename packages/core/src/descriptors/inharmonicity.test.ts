import { describe, expect, it } from 'vitest';
import { createPeaks, referenceInharmonicity } from './peaks.ts';

function peaksAt(freqs: number[], amp = 1) {
  const p = createPeaks(freqs.length);
  freqs.forEach((f, i) => {
    p.frequencies[i] = f;
    p.magnitudes[i] = amp;
  });
  p.count = freqs.length;
  return p;
}

describe('inharmonicity (Essentia HarmonicPeaks + Inharmonicity)', () => {
  it('is 0 for exact harmonics and for no pitch', () => {
    expect(referenceInharmonicity(peaksAt([200, 400, 600, 800]), 200)).toBeCloseTo(0, 12);
    expect(referenceInharmonicity(peaksAt([200, 400]), 0)).toBe(0);
  });
  it('is Σ|f_h − h·f0|·a² / (f0·Σa²): partials 10 Hz off each at f0 = 200 give 0.05', () => {
    expect(referenceInharmonicity(peaksAt([210, 410, 610]), 200)).toBeCloseTo(0.05, 9);
  });
  it('ignores peaks more than 0.2 of a harmonic number from every harmonic', () => {
    expect(referenceInharmonicity(peaksAt([200, 500, 800]), 200)).toBeCloseTo(0, 12);
  });
});
