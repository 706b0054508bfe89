export {
  CATEGORY_CONFIDENCE_THRESHOLD,
  CATEGORY_SPACE,
  type CategoryModel,
  categoryModelDue,
  categoryTrainingSet,
  estimateCategory,
  MAX_SOUNDS_PER_LABEL,
  MIN_SOUNDS_PER_LABEL,
  parseCategoryModel,
  RETRAIN_GROWTH,
  trainCategoryModel,
} from './category-model.ts';
export {
  crossValidatedPredictions,
  type Evaluation,
  evaluatePredictions,
  type LabelScore,
  type Learner,
  stratifiedFolds,
  type ThresholdPoint,
} from './cross-validation.ts';
export { classifyNearest, DEFAULT_NEIGHBOURS } from './nearest-neighbours.ts';
export {
  classifySoftmax,
  DEFAULT_SOFTMAX_OPTIONS,
  type SoftmaxModel,
  type SoftmaxOptions,
  softmaxProbabilities,
  trainSoftmax,
} from './softmax-regression.ts';
export { trainCategoryModelInWorker } from './train-in-worker.ts';
export type { LabelledVector, Prediction } from './types.ts';
