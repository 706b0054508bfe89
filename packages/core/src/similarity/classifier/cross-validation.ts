import type { LabelledVector, Prediction } from './types.ts';

/** Trains on a set of labelled vectors and returns a function that classifies one vector. */
export type Learner = (training: LabelledVector[]) => (vector: ArrayLike<number>) => Prediction;

/**
 * The fold of each example for k-fold cross-validation, stratified: each label's examples are dealt
 * round-robin in the order given, so every fold holds about 1/k of every label. Deterministic.
 */
export function stratifiedFolds(labels: string[], folds: number): number[] {
  if (!Number.isInteger(folds) || folds < 2) throw new Error('cross-validation needs at least two folds');
  const dealt = new Map<string, number>();
  return labels.map((label) => {
    const n = dealt.get(label) ?? 0;
    dealt.set(label, n + 1);
    return n % folds;
  });
}

/** Each example's prediction by a model trained on the other folds (never on itself). */
export function crossValidatedPredictions(
  examples: LabelledVector[],
  folds: number,
  learner: Learner,
): Prediction[] {
  const fold = stratifiedFolds(
    examples.map((e) => e.label),
    folds,
  );
  const out = new Array<Prediction>(examples.length);
  for (let f = 0; f < folds; f++) {
    const training = examples.filter((_, i) => fold[i] !== f);
    const classify = learner(training);
    examples.forEach((e, i) => {
      if (fold[i] === f) out[i] = classify(e.vector);
    });
  }
  return out;
}

export interface LabelScore {
  label: string;
  examples: number;
  /** Share of this label's examples predicted as it (recall). */
  recall: number;
  /** Share of the predictions of this label that were right; null when it was never predicted. */
  precision: number | null;
}

export interface ThresholdPoint {
  threshold: number;
  /** Share of examples whose confidence reaches the threshold (those that get a label). */
  coverage: number;
  /** Accuracy over those examples; null when none does. */
  accuracy: number | null;
}

export interface Evaluation {
  examples: number;
  accuracy: number;
  /** Always answering the most frequent label: the floor any classifier must beat. */
  majority: { label: string; accuracy: number };
  perLabel: LabelScore[];
  tradeoff: ThresholdPoint[];
}

/** Scores predictions against the true labels, per label and overall, and at each threshold. */
export function evaluatePredictions(
  truth: string[],
  predictions: Prediction[],
  thresholds: number[] = [],
): Evaluation {
  if (truth.length !== predictions.length) throw new Error('one prediction per example is needed');
  if (truth.length === 0) throw new Error('nothing to evaluate');
  const labels = [...new Set(truth)].sort();
  const count = (label: string) => truth.filter((t) => t === label).length;
  const majorityLabel = labels.reduce((best, l) => (count(l) > count(best) ? l : best), labels[0]);
  const correct = truth.filter((t, i) => predictions[i].label === t).length;
  const perLabel = labels.map((label) => {
    const predicted = predictions.filter((p) => p.label === label).length;
    const hits = truth.filter((t, i) => t === label && predictions[i].label === label).length;
    return {
      label,
      examples: count(label),
      recall: hits / count(label),
      precision: predicted === 0 ? null : hits / predicted,
    };
  });
  const tradeoff = thresholds.map((threshold) => {
    const kept = truth.map((t, i) => ({ t, p: predictions[i] })).filter(({ p }) => p.confidence >= threshold);
    const right = kept.filter(({ t, p }) => p.label === t).length;
    return {
      threshold,
      coverage: kept.length / truth.length,
      accuracy: kept.length === 0 ? null : right / kept.length,
    };
  });
  return {
    examples: truth.length,
    accuracy: correct / truth.length,
    majority: { label: majorityLabel, accuracy: count(majorityLabel) / truth.length },
    perLabel,
    tradeoff,
  };
}
