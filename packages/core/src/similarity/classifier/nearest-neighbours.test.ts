import { describe, expect, it } from 'vitest';
import { classifyNearest } from './nearest-neighbours.ts';

const LABELLED = [
  { label: 'kick', vector: [1, 0] },
  { label: 'kick', vector: [0.9, 0.1] },
  { label: 'kick', vector: [0.95, -0.1] },
  { label: 'hat', vector: [0, 1] },
  { label: 'hat', vector: [0.1, 0.9] },
];

describe('classifyNearest', () => {
  it('takes the label of the nearest vectors by cosine, whatever their length', () => {
    expect(classifyNearest(LABELLED, [10, 1], 1)).toEqual({ label: 'kick', confidence: 1 });
    expect(classifyNearest(LABELLED, [0.05, 3], 1).label).toBe('hat');
  });

  it('gives the winning share of similarity-weighted votes as confidence', () => {
    const p = classifyNearest(LABELLED, [1, 0], 5);
    expect(p.label).toBe('kick');
    // Votes 1 + cosine: kicks ≈ 2 + 1.994 + 1.994, hats ≈ 1 + 1.110; share ≈ 0.743.
    expect(p.confidence).toBeCloseTo(5.988 / (5.988 + 2.11), 2);
  });

  it('refuses an empty labelled set', () => {
    expect(() => classifyNearest([], [1, 0])).toThrow(/no labelled examples/);
  });
});
