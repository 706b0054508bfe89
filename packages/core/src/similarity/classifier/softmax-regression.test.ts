import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../testing/similarity.ts';
import { classifySoftmax, softmaxProbabilities, trainSoftmax } from './softmax-regression.ts';
import type { LabelledVector } from './types.ts';

/** Points around a centre per label, with noise of the given spread. */
function clusters(
  centres: Record<string, number[]>,
  perLabel: number,
  spread: number,
  seed = 3,
): LabelledVector[] {
  const random = seededRandom(seed);
  return Object.entries(centres).flatMap(([label, centre]) =>
    Array.from({ length: perLabel }, () => ({
      label,
      vector: centre.map((c) => c + (random() - 0.5) * 2 * spread),
    })),
  );
}

const CENTRES = { a: [1, 0, 0], b: [0, 1, 0], c: [0, 0, 1] };

describe('trainSoftmax / classifySoftmax', () => {
  it('separates three well-separated clusters, held-out points included', () => {
    const model = trainSoftmax(clusters(CENTRES, 20, 0.2));
    expect(model.labels).toEqual(['a', 'b', 'c']);
    for (const p of clusters(CENTRES, 10, 0.2, 99))
      expect(classifySoftmax(model, p.vector).label).toBe(p.label);
  });

  it('is sure near a centre and unsure halfway between two', () => {
    const model = trainSoftmax(clusters(CENTRES, 20, 0.2));
    expect(classifySoftmax(model, [1, 0, 0]).confidence).toBeGreaterThan(0.9);
    expect(classifySoftmax(model, [0.5, 0.5, 0]).confidence).toBeLessThan(0.7);
  });

  it('gives probabilities that sum to one', () => {
    const model = trainSoftmax(clusters(CENTRES, 10, 0.3));
    const p = softmaxProbabilities(model, [0.2, 0.7, 0.1]);
    expect(p.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
  });

  it('gives the same model for the same examples, and one equal to rounding in another order', () => {
    const examples = clusters(CENTRES, 8, 0.4);
    expect(trainSoftmax(examples)).toEqual(trainSoftmax(examples));
    const reversed = trainSoftmax([...examples].reverse()).weights.flat();
    for (const [i, w] of trainSoftmax(examples).weights.flat().entries())
      expect(reversed[i]).toBeCloseTo(w, 9);
  });

  it('balanced: a small label is not swallowed by a large one it overlaps', () => {
    const examples = [...clusters({ big: [0, 0] }, 60, 1, 5), ...clusters({ small: [1.2, 0] }, 6, 0.5, 6)];
    const balanced = trainSoftmax(examples, { balanced: true });
    const plain = trainSoftmax(examples, { balanced: false });
    const small = examples.filter((e) => e.label === 'small');
    const recall = (m: typeof plain) =>
      small.filter((e) => classifySoftmax(m, e.vector).label === 'small').length;
    expect(recall(balanced)).toBeGreaterThan(recall(plain));
  });

  it('refuses one label, no examples, and a vector of another dimension', () => {
    expect(() => trainSoftmax([])).toThrow(/no labelled examples/);
    expect(() => trainSoftmax(clusters({ a: [1, 0] }, 3, 0.1))).toThrow(/two labels/);
    const model = trainSoftmax(clusters(CENTRES, 5, 0.1));
    expect(() => classifySoftmax(model, [1, 0])).toThrow(/3-dimensional/);
  });
});
