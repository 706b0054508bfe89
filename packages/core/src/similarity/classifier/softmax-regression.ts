import type { LabelledVector, Prediction } from './types.ts';

/**
 * A multinomial logistic regression over standardized inputs: small (labels × (dimension + 1)
 * numbers), so it is stored whole and read per sound; its probabilities are calibrated enough to
 * threshold on.
 */
export interface SoftmaxModel {
  kind: 'softmax';
  labels: string[];
  dimension: number;
  /** Per input: subtracted, then divided by `scale` (the training set's mean and spread). */
  mean: number[];
  scale: number[];
  /** Row per label: `dimension` weights, then the bias. */
  weights: number[][];
}

export interface SoftmaxOptions {
  /** L2 penalty on the weights (not the biases), per example. */
  l2?: number;
  iterations?: number;
  learningRate?: number;
  /** Weigh each label's examples by the inverse of its share, so a large label cannot drown the rest. */
  balanced?: boolean;
}

export const DEFAULT_SOFTMAX_OPTIONS: Required<SoftmaxOptions> = {
  l2: 0.01,
  iterations: 400,
  learningRate: 0.5,
  balanced: true,
};

/** A spread below this counts as none: such an input is only centred. */
const MIN_SCALE = 1e-6;

function standardizer(examples: LabelledVector[], dimension: number): { mean: number[]; scale: number[] } {
  const mean = new Array<number>(dimension).fill(0);
  const scale = new Array<number>(dimension).fill(0);
  for (const { vector } of examples)
    for (let d = 0; d < dimension; d++) mean[d] += vector[d] / examples.length;
  for (const { vector } of examples)
    for (let d = 0; d < dimension; d++) scale[d] += (vector[d] - mean[d]) ** 2 / examples.length;
  for (let d = 0; d < dimension; d++) {
    const sd = Math.sqrt(scale[d]);
    scale[d] = sd < MIN_SCALE ? 1 : sd;
  }
  return { mean, scale };
}

function standardized(vector: ArrayLike<number>, mean: number[], scale: number[]): Float64Array {
  const out = new Float64Array(mean.length);
  for (let d = 0; d < mean.length; d++) out[d] = (vector[d] - mean[d]) / scale[d];
  return out;
}

/** Softmax of the scores, in place; stable for large scores. */
function softmaxInPlace(scores: Float64Array): void {
  let max = -Infinity;
  for (const s of scores) max = Math.max(max, s);
  let sum = 0;
  for (let i = 0; i < scores.length; i++) {
    scores[i] = Math.exp(scores[i] - max);
    sum += scores[i];
  }
  for (let i = 0; i < scores.length; i++) scores[i] /= sum;
}

function scoresOf(weights: Float64Array[], x: Float64Array): Float64Array {
  const dimension = x.length;
  const scores = new Float64Array(weights.length);
  for (let k = 0; k < weights.length; k++) {
    const w = weights[k];
    let s = w[dimension];
    for (let d = 0; d < dimension; d++) s += w[d] * x[d];
    scores[k] = s;
  }
  return scores;
}

/**
 * Fits the model by full-batch gradient descent with momentum from zero weights: deterministic (the
 * same examples give the same model; another order only changes the rounding). Needs two labels.
 */
export function trainSoftmax(examples: LabelledVector[], options: SoftmaxOptions = {}): SoftmaxModel {
  const { l2, iterations, learningRate, balanced } = { ...DEFAULT_SOFTMAX_OPTIONS, ...options };
  if (examples.length === 0) throw new Error('no labelled examples to train on');
  const dimension = examples[0].vector.length;
  for (const e of examples)
    if (e.vector.length !== dimension) throw new Error('labelled vectors differ in dimension');
  const labels = [...new Set(examples.map((e) => e.label))].sort();
  if (labels.length < 2) throw new Error('training needs at least two labels');
  const { mean, scale } = standardizer(examples, dimension);
  const xs = examples.map((e) => standardized(e.vector, mean, scale));
  const ys = examples.map((e) => labels.indexOf(e.label));
  const counts = labels.map((_, k) => ys.filter((y) => y === k).length);
  const exampleWeight = ys.map((y) => (balanced ? examples.length / (labels.length * counts[y]) : 1));
  const totalWeight = exampleWeight.reduce((a, b) => a + b, 0);

  const weights = labels.map(() => new Float64Array(dimension + 1));
  const velocity = labels.map(() => new Float64Array(dimension + 1));
  const momentum = 0.9;
  for (let it = 0; it < iterations; it++) {
    const gradient = labels.map(() => new Float64Array(dimension + 1));
    for (let i = 0; i < xs.length; i++) {
      const p = scoresOf(weights, xs[i]);
      softmaxInPlace(p);
      const w = exampleWeight[i] / totalWeight;
      for (let k = 0; k < labels.length; k++) {
        const err = (p[k] - (ys[i] === k ? 1 : 0)) * w;
        const g = gradient[k];
        for (let d = 0; d < dimension; d++) g[d] += err * xs[i][d];
        g[dimension] += err;
      }
    }
    for (let k = 0; k < labels.length; k++) {
      for (let d = 0; d <= dimension; d++) {
        const penalty = d < dimension ? l2 * weights[k][d] : 0;
        velocity[k][d] = momentum * velocity[k][d] - learningRate * (gradient[k][d] + penalty);
        weights[k][d] += velocity[k][d];
      }
    }
  }
  return { kind: 'softmax', labels, dimension, mean, scale, weights: weights.map((w) => Array.from(w)) };
}

/** Every label's probability for the vector, in the model's label order. */
export function softmaxProbabilities(model: SoftmaxModel, vector: ArrayLike<number>): Float64Array {
  if (vector.length !== model.dimension)
    throw new Error(`the model takes ${model.dimension}-dimensional vectors, not ${vector.length}`);
  const x = standardized(vector, model.mean, model.scale);
  const scores = scoresOf(
    model.weights.map((w) => Float64Array.from(w)),
    x,
  );
  softmaxInPlace(scores);
  return scores;
}

/** The most probable label and its probability. */
export function classifySoftmax(model: SoftmaxModel, vector: ArrayLike<number>): Prediction {
  const p = softmaxProbabilities(model, vector);
  let best = 0;
  for (let k = 1; k < p.length; k++) if (p[k] > p[best]) best = k;
  return { label: model.labels[best], confidence: p[best] };
}
