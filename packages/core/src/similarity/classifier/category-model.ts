import { DEFAULT_SIMILARITY_SPACE } from '../spaces/registry.ts';
import { classifySoftmax, type SoftmaxModel, trainSoftmax } from './softmax-regression.ts';
import type { LabelledVector, Prediction } from './types.ts';

/**
 * The automatic broad-taxonomy category: a softmax regression (softmax-regression.ts) over the
 * similarity space's vectors, trained on the sounds whose uploaders gave a category. Labels are
 * `category_code`s (`is-p`, or a bare prefix such as `m` when only the category was given). The
 * choice of classifier and threshold is measured in benchmarks/results/category.md.
 */
export const CATEGORY_SPACE = DEFAULT_SIMILARITY_SPACE;

/** Below this probability of its best label a sound keeps no category (an empty one is honest). */
export const CATEGORY_CONFIDENCE_THRESHOLD = 0.6;

/** A label with fewer labelled sounds is not learned: too few to tell it from noise. */
export const MIN_SOUNDS_PER_LABEL = 3;

/** A label's sounds beyond this are thinned evenly, so training stays within a minute or two on a large catalogue (its time grows with examples × labels). */
export const MAX_SOUNDS_PER_LABEL = 500;

/** A model is first trained, and then retrained, once labels have grown by this share (at least one more). */
export const RETRAIN_GROWTH = 0.1;

export type CategoryModel = SoftmaxModel;

/** The examples training uses: labels with enough sounds, each thinned to the cap, in a stable order. */
export function categoryTrainingSet(examples: LabelledVector[]): LabelledVector[] {
  const byLabel = new Map<string, LabelledVector[]>();
  for (const e of examples) byLabel.set(e.label, [...(byLabel.get(e.label) ?? []), e]);
  return [...byLabel.keys()].sort().flatMap((label) => {
    const all = byLabel.get(label) ?? [];
    if (all.length < MIN_SOUNDS_PER_LABEL) return [];
    if (all.length <= MAX_SOUNDS_PER_LABEL) return all;
    const step = all.length / MAX_SOUNDS_PER_LABEL;
    return Array.from({ length: MAX_SOUNDS_PER_LABEL }, (_, i) => all[Math.floor(i * step)]);
  });
}

/** The model, or undefined while fewer than two labels have enough sounds to learn from. */
export function trainCategoryModel(examples: LabelledVector[]): CategoryModel | undefined {
  const training = categoryTrainingSet(examples);
  if (new Set(training.map((e) => e.label)).size < 2) return undefined;
  return trainSoftmax(training);
}

/** The estimated label, or undefined when the model is less sure than the threshold. */
export function estimateCategory(
  model: CategoryModel,
  vector: ArrayLike<number>,
  threshold = CATEGORY_CONFIDENCE_THRESHOLD,
): Prediction | undefined {
  const prediction = classifySoftmax(model, vector);
  return prediction.confidence >= threshold ? prediction : undefined;
}

/** Whether `labelled` sounds call for a new model when the current one was trained on `trainedOn` (none: 0). */
export function categoryModelDue(labelled: number, trainedOn: number): boolean {
  return labelled - trainedOn >= Math.max(1, Math.ceil(trainedOn * RETRAIN_GROWTH));
}

const isNumberArray = (v: unknown, length: number): v is number[] =>
  Array.isArray(v) && v.length === length && v.every((x) => typeof x === 'number' && Number.isFinite(x));

/** A stored model read back (JSON), checked whole: a damaged one is refused, never half-used. */
export function parseCategoryModel(value: unknown): CategoryModel {
  const m = value as Partial<SoftmaxModel> | null;
  const dimension = m?.dimension;
  const labels = m?.labels;
  if (
    m?.kind !== 'softmax' ||
    typeof dimension !== 'number' ||
    !Number.isInteger(dimension) ||
    dimension < 1 ||
    !Array.isArray(labels) ||
    labels.length < 2 ||
    !labels.every((l) => typeof l === 'string') ||
    !isNumberArray(m.mean, dimension) ||
    !isNumberArray(m.scale, dimension) ||
    !Array.isArray(m.weights) ||
    m.weights.length !== labels.length ||
    !m.weights.every((w) => isNumberArray(w, dimension + 1))
  )
    throw new Error('the stored category model is not a valid softmax model');
  return { kind: 'softmax', labels, dimension, mean: m.mean, scale: m.scale, weights: m.weights };
}
