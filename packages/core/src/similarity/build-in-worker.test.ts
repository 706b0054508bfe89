import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ValidationError } from '@earshot/common';
import { afterAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../testing/similarity.ts';
import { buildSimilarityIndexInWorker, bulkUpsertInWorker } from './build-in-worker.ts';
import { SimilarityIndex } from './similarity-index.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-similarity-worker-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Clustered vectors: 20 centres, each sound near one of them. */
function clustered(count: number, seed: number): Float32Array {
  const random = seededRandom(seed);
  const centres = Array.from({ length: 20 }, () => Float32Array.from({ length: 100 }, () => random() - 0.5));
  const out = new Float32Array(count * 100);
  for (let row = 0; row < count; row++) {
    const centre = centres[Math.floor(random() * centres.length)];
    for (let j = 0; j < 100; j++) out[row * 100 + j] = centre[j] + 0.2 * (random() - 0.5);
  }
  return out;
}

describe('building in a worker thread', () => {
  const count = 1500;
  const ids = Array.from({ length: count }, (_, i) => 10 + i);
  const vectors = clustered(count, 3);

  it('builds the same graph as inserting one by one on the main thread', async () => {
    const progress: number[] = [];
    const built = await buildSimilarityIndexInWorker(
      path.join(tmp, 'built'),
      { ids, vectors },
      {
        onProgress: (done, total) => {
          expect(total).toBe(count);
          progress.push(done);
        },
      },
    );
    expect(built.size).toBe(count);
    expect(progress.at(-1)).toBe(count);
    const direct = SimilarityIndex.create({ capacity: count });
    ids.forEach((id, row) => {
      direct.upsert(id, vectors.subarray(row * 100, (row + 1) * 100));
    });
    for (const id of [10, 500, 1509]) {
      expect(built.nearestToSound(id, { k: 15 })).toEqual(direct.nearestToSound(id, { k: 15 }));
    }
  });

  it('refuses a bad row, naming its sound, and a matrix of the wrong size', async () => {
    const bad = vectors.slice(0, 300);
    bad[2 * 100 + 5] = Number.NaN;
    const attempt = buildSimilarityIndexInWorker(path.join(tmp, 'bad'), { ids: [1, 2, 3], vectors: bad });
    await expect(attempt).rejects.toThrow(ValidationError);
    await expect(
      buildSimilarityIndexInWorker(path.join(tmp, 'bad'), { ids: [1, 2, 3], vectors: bad }),
    ).rejects.toThrow('Sound 3: Vector for freesound_classic has a non-finite value at dimension 5');
    await expect(
      buildSimilarityIndexInWorker(path.join(tmp, 'bad'), { ids: [1, 2], vectors: bad }),
    ).rejects.toThrow('Expected 2 × 100 = 200 values for freesound_classic, got 300');
    await expect(
      buildSimilarityIndexInWorker(path.join(tmp, 'bad'), { ids: [4, 4, 5], vectors: bad.slice(0, 300) }),
    ).rejects.toThrow('Sound id 4 appears twice');
  });

  it('bulk-inserts into a live index, keeping mutations made meanwhile', async () => {
    const index = SimilarityIndex.create();
    for (let row = 0; row < 100; row++) index.upsert(ids[row], vectors.subarray(row * 100, (row + 1) * 100));
    index.remove(ids[0]);
    const rest = { ids: ids.slice(100, 600), vectors: vectors.subarray(100 * 100, 600 * 100) };
    const running = bulkUpsertInWorker(index, path.join(tmp, 'work'), path.join(tmp, 'bulk'), rest);
    await new Promise((resolve) => setTimeout(resolve, 0));
    index.upsert(99_999, vectors.subarray(0, 100));
    await running;
    expect(index.size).toBe(99 + 500 + 1);
    expect(index.has(ids[0])).toBe(false);
    expect(index.has(99_999)).toBe(true);
    expect(index.nearestToVector(vectors.subarray(550 * 100, 551 * 100), { k: 1 })[0].id).toBe(ids[550]);
  });
});
