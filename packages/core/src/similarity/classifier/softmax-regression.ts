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
  iterations: 150,
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

/** Scores of one standardized input `x` (at `offset` of a flat array) under flat weights (rows of dimension + 1). */
function scoresInto(
  out: Float64Array,
  weights: Float64Array,
  x: Float64Array,
  offset: number,
  dimension: number,
): void {
  const row = dimension + 1;
  for (let k = 0; k < out.length; k++) {
    const base = k * row;
    let s = weights[base + dimension];
    for (let d = 0; d < dimension; d++) s += weights[base + d] * x[offset + d];
    out[k] = s;
  }
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
  // One flat array of inputs and one of weights: the loop below runs iterations × examples × labels times.
  const xs = new Float64Array(examples.length * dimension);
  for (const [i, e] of examples.entries()) xs.set(standardized(e.vector, mean, scale), i * dimension);
  const ys = examples.map((e) => labels.indexOf(e.label));
  const counts = labels.map((_, k) => ys.filter((y) => y === k).length);
  const exampleWeight = ys.map((y) => (balanced ? examples.length / (labels.length * counts[y]) : 1));
  const totalWeight = exampleWeight.reduce((a, b) => a + b, 0);

  const row = dimension + 1;
  const weights = new Float64Array(labels.length * row);
  const velocity = new Float64Array(labels.length * row);
  const gradient = new Float64Array(labels.length * row);
  const p = new Float64Array(labels.length);
  const momentum = 0.9;
  for (let it = 0; it < iterations; it++) {
    gradient.fill(0);
    for (let i = 0; i < examples.length; i++) {
      const offset = i * dimension;
      scoresInto(p, weights, xs, offset, dimension);
      softmaxInPlace(p);
      const w = exampleWeight[i] / totalWeight;
      for (let k = 0; k < labels.length; k++) {
        const err = (p[k] - (ys[i] === k ? 1 : 0)) * w;
        const base = k * row;
        for (let d = 0; d < dimension; d++) gradient[base + d] += err * xs[offset + d];
        gradient[base + dimension] += err;
      }
    }
    for (let j = 0; j < weights.length; j++) {
      const penalty = j % row < dimension ? l2 * weights[j] : 0;
      velocity[j] = momentum * velocity[j] - learningRate * (gradient[j] + penalty);
      weights[j] += velocity[j];
    }
  }
  return {
    kind: 'softmax',
    labels,
    dimension,
    mean,
    scale,
    weights: labels.map((_, k) => Array.from(weights.subarray(k * row, (k + 1) * row))),
  };
}

/** Every label's probability for the vector, in the model's label order. */
export function softmaxProbabilities(model: SoftmaxModel, vector: ArrayLike<number>): Float64Array {
  if (vector.length !== model.dimension)
    throw new Error(`the model takes ${model.dimension}-dimensional vectors, not ${vector.length}`);
  const scores = new Float64Array(model.labels.length);
  scoresInto(
    scores,
    Float64Array.from(model.weights.flat()),
    standardized(vector, model.mean, model.scale),
    0,
    model.dimension,
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
