import { describe, expect, it } from 'vitest';
import {
  categoryModelDue,
  categoryTrainingSet,
  estimateCategory,
  MAX_SOUNDS_PER_LABEL,
  parseCategoryModel,
  trainCategoryModel,
} from './category-model.ts';

const example = (label: string, x: number, y: number) => ({ label, vector: [x, y] });
const LABELLED = [
  example('is-p', 1, 0),
  example('is-p', 0.9, 0.1),
  example('is-p', 0.95, -0.1),
  example('ss-s', 0, 1),
  example('ss-s', 0.1, 0.9),
  example('ss-s', -0.1, 0.95),
  example('fx-a', 0.5, 0.5),
  example('fx-a', 0.4, 0.6),
];

describe('categoryTrainingSet / trainCategoryModel', () => {
  it('leaves out labels with fewer than three sounds', () => {
    expect(new Set(categoryTrainingSet(LABELLED).map((e) => e.label))).toEqual(new Set(['is-p', 'ss-s']));
    expect(trainCategoryModel(LABELLED)?.labels).toEqual(['is-p', 'ss-s']);
  });

  it('thins a label with more sounds than the cap, evenly', () => {
    const many = Array.from({ length: MAX_SOUNDS_PER_LABEL * 2 }, (_, i) => example('is-p', i, 1));
    const kept = categoryTrainingSet(many);
    expect(kept).toHaveLength(MAX_SOUNDS_PER_LABEL);
    expect(kept[1].vector[0]).toBe(2);
  });

  it('trains nothing while fewer than two labels can be learned', () => {
    expect(trainCategoryModel(LABELLED.filter((e) => e.label !== 'ss-s'))).toBeUndefined();
    expect(trainCategoryModel([])).toBeUndefined();
  });
});

describe('estimateCategory', () => {
  const model = trainCategoryModel(LABELLED);
  if (!model) throw new Error('expected a model');

  it('labels a sound near a learned label and leaves an ambiguous one unlabelled', () => {
    expect(estimateCategory(model, [1, 0.05])?.label).toBe('is-p');
    expect(estimateCategory(model, [0.5, 0.5])).toBeUndefined();
    expect(estimateCategory(model, [0.5, 0.5], 0)?.confidence).toBeLessThan(0.6);
  });

  it('reads back what it stored as JSON, and refuses a damaged model', () => {
    expect(parseCategoryModel(JSON.parse(JSON.stringify(model)))).toEqual(model);
    expect(() => parseCategoryModel({ ...model, weights: model.weights.slice(1) })).toThrow(/not a valid/);
    expect(() => parseCategoryModel(null)).toThrow(/not a valid/);
    expect(() => parseCategoryModel({ ...model, mean: [0, Number.NaN] })).toThrow(/not a valid/);
  });
});

describe('categoryModelDue', () => {
  it('trains at the first label, then once labels grew by a tenth', () => {
    expect(categoryModelDue(0, 0)).toBe(false);
    expect(categoryModelDue(1, 0)).toBe(true);
    expect(categoryModelDue(100, 95)).toBe(false);
    expect(categoryModelDue(110, 100)).toBe(true);
    expect(categoryModelDue(109, 100)).toBe(false);
  });
});
