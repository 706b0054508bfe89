import { describe, expect, it } from 'vitest';
import { crossValidatedPredictions, evaluatePredictions, stratifiedFolds } from './cross-validation.ts';

describe('stratifiedFolds', () => {
  it('deals each label round-robin over the folds', () => {
    expect(stratifiedFolds(['a', 'a', 'b', 'a', 'b', 'b', 'a'], 3)).toEqual([0, 1, 0, 2, 1, 2, 0]);
  });

  it('refuses fewer than two folds', () => {
    expect(() => stratifiedFolds(['a'], 1)).toThrow(/two folds/);
  });
});

describe('crossValidatedPredictions', () => {
  it('never trains on the example it predicts', () => {
    const examples = [0, 1, 2, 3, 4, 5].map((i) => ({ label: 'x', vector: [i] }));
    const seen = crossValidatedPredictions(examples, 3, (training) => (vector) => ({
      label: training.some((t) => t.vector[0] === vector[0]) ? 'leak' : 'clean',
      confidence: 1,
    }));
    expect(seen.map((p) => p.label)).toEqual(Array(6).fill('clean'));
  });
});

describe('evaluatePredictions', () => {
  const truth = ['a', 'a', 'a', 'b'];
  const predictions = [
    { label: 'a', confidence: 0.9 },
    { label: 'a', confidence: 0.4 },
    { label: 'b', confidence: 0.8 },
    { label: 'b', confidence: 0.3 },
  ];

  it('scores overall, per label, and against always answering the majority label', () => {
    const e = evaluatePredictions(truth, predictions);
    expect(e.accuracy).toBe(0.75);
    expect(e.majority).toEqual({ label: 'a', accuracy: 0.75 });
    expect(e.perLabel).toEqual([
      { label: 'a', examples: 3, recall: 2 / 3, precision: 1 },
      { label: 'b', examples: 1, recall: 1, precision: 0.5 },
    ]);
  });

  it('gives coverage and accuracy of the predictions at or above each threshold', () => {
    const { tradeoff } = evaluatePredictions(truth, predictions, [0, 0.5, 0.85, 0.95]);
    expect(tradeoff).toEqual([
      { threshold: 0, coverage: 1, accuracy: 0.75 },
      { threshold: 0.5, coverage: 0.5, accuracy: 0.5 },
      { threshold: 0.85, coverage: 0.25, accuracy: 1 },
      { threshold: 0.95, coverage: 0, accuracy: null },
    ]);
  });
});
