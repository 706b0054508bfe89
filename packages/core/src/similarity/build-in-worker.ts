import { ValidationError } from '@earshot/common/errors';
import { createModuleWorker } from '@earshot/common/module-worker';
import { WorkerThreadError } from '../worker-errors.ts';
import type { BuildMessage, BuildRequest } from './build-protocol.ts';
import type { GraphParameters } from './hnsw-graph.ts';
import { SimilarityIndex, type SimilarityIndexOptions } from './similarity-index.ts';
import type { SnapshotMeta } from './snapshot.ts';
import { getSimilaritySpace } from './spaces/registry.ts';
import { assertSoundId } from './vector.ts';

export interface BulkVectors {
  ids: ArrayLike<number>;
  /** Row-major, `ids.length × dimension` values. */
  vectors: Float32Array;
}

export interface WorkerBuildOptions {
  space?: string;
  parameters?: Partial<GraphParameters>;
  onProgress?: (done: number, total: number) => void;
}

function checkBulk(spaceName: string | undefined, bulk: BulkVectors): { space: string; ids: Uint32Array } {
  const space = getSimilaritySpace(spaceName);
  if (bulk.vectors.length !== bulk.ids.length * space.dimension) {
    throw new ValidationError(
      `Expected ${bulk.ids.length} × ${space.dimension} = ${bulk.ids.length * space.dimension} values for ${space.name}, got ${bulk.vectors.length}`,
    );
  }
  const ids = new Uint32Array(bulk.ids.length);
  const seen = new Set<number>();
  for (let i = 0; i < ids.length; i++) {
    assertSoundId(bulk.ids[i]);
    if (seen.has(bulk.ids[i]))
      throw new ValidationError(`Sound id ${bulk.ids[i]} appears twice in a bulk build`);
    seen.add(bulk.ids[i]);
    ids[i] = bulk.ids[i];
  }
  return { space: space.name, ids };
}

/** Runs the build worker to completion; rejects with the worker's error (a bad vector names its row). */
export function runBuildWorker(request: BuildRequest, onProgress?: (done: number, total: number) => void) {
  return new Promise<SnapshotMeta>((resolve, reject) => {
    const worker = createModuleWorker(new URL('./build.worker.ts', import.meta.url), { workerData: request });
    let settled = false;
    worker.on('message', (message: BuildMessage) => {
      if (message.type === 'progress') onProgress?.(message.done, message.total);
      else if (message.type === 'done') {
        settled = true;
        resolve(message.meta);
      } else {
        settled = true;
        const error =
          message.name === 'ValidationError' || message.name.endsWith('VectorError')
            ? new ValidationError(message.message)
            : new WorkerThreadError('similarity-build', message.message);
        reject(error);
      }
    });
    worker.once('error', (error) => {
      settled = true;
      reject(error);
    });
    worker.once('exit', (code) => {
      if (!settled)
        reject(
          new WorkerThreadError('similarity-build', `similarity build worker exited with code ${code}`, code),
        );
    });
  });
}

/**
 * Builds a fresh index from stored vectors in a worker thread (the event loop stays free), writes
 * its snapshot to `dir`, and loads it. This is also how the index is rebuilt from the catalogue.
 */
export async function buildSimilarityIndexInWorker(
  dir: string,
  bulk: BulkVectors,
  options: WorkerBuildOptions & Omit<SimilarityIndexOptions, 'space' | 'parameters' | 'capacity'> = {},
): Promise<SimilarityIndex> {
  const { space, ids } = checkBulk(options.space, bulk);
  await runBuildWorker(
    { space, dir, ids, vectors: bulk.vectors, parameters: options.parameters },
    options.onProgress,
  );
  return SimilarityIndex.load(dir, options);
}

/**
 * Adds (or updates) many sounds in a worker thread: the index is snapshotted to `workDir`, the
 * worker extends that snapshot into `dir`, and the index swaps to the result. Single mutations made
 * meanwhile are queued and applied afterwards.
 */
export async function bulkUpsertInWorker(
  index: SimilarityIndex,
  workDir: string,
  dir: string,
  bulk: BulkVectors,
  onProgress?: (done: number, total: number) => void,
): Promise<void> {
  const { space, ids } = checkBulk(index.space.name, bulk);
  await index.extendThroughSnapshot(workDir, dir, async () => {
    await runBuildWorker({ space, dir, baseDir: workDir, ids, vectors: bulk.vectors }, onProgress);
  });
}
