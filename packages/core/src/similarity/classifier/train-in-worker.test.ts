import { describe, expect, it } from 'vitest';
import { trainCategoryModel } from './category-model.ts';
import { trainCategoryModelInWorker } from './train-in-worker.ts';

const example = (label: string, x: number, y: number) => ({ label, vector: Float32Array.of(x, y) });
const LABELLED = [
  example('is-p', 1, 0),
  example('is-p', 0.9, 0.1),
  example('is-p', 0.95, -0.1),
  example('ss-s', 0, 1),
  example('ss-s', 0.1, 0.9),
  example('ss-s', -0.1, 0.95),
];

describe('trainCategoryModelInWorker', () => {
  it('trains in a worker thread the same model as on the caller’s thread', async () => {
    expect(await trainCategoryModelInWorker(LABELLED)).toEqual(trainCategoryModel(LABELLED));
    expect(await trainCategoryModelInWorker(LABELLED.slice(0, 3))).toBeUndefined();
  });

  it('stops when the signal is aborted', async () => {
    const controller = new AbortController();
    const many = Array.from({ length: 20_000 }, (_, i) => example(i % 2 ? 'a' : 'b', i % 7, i % 11));
    const training = trainCategoryModelInWorker(many, controller.signal);
    controller.abort(new Error('shutting down'));
    await expect(training).rejects.toThrow('shutting down');
    expect(() => trainCategoryModelInWorker(many, controller.signal)).toThrow('shutting down');
  });
});
