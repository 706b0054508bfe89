import { createModuleWorker } from '@earshot/common/module-worker';
import { WorkerThreadError } from '../../worker-errors.ts';
import type { CategoryModel } from './category-model.ts';
import type { TrainMessage, TrainRequest } from './train-protocol.ts';
import type { LabelledVector } from './types.ts';

/**
 * `trainCategoryModel` in a worker thread: the same model, without holding the caller's event loop
 * for the training's seconds. Aborting the signal stops the thread and rejects with its reason.
 */
export function trainCategoryModelInWorker(
  examples: LabelledVector[],
  signal?: AbortSignal,
): Promise<CategoryModel | undefined> {
  signal?.throwIfAborted();
  const request: TrainRequest = {
    examples: examples.map((e) => ({ label: e.label, vector: Array.from(e.vector) })),
  };
  return new Promise((resolve, reject) => {
    const worker = createModuleWorker(new URL('./train.worker.ts', import.meta.url), { workerData: request });
    let settled = false;
    const settle = (done: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      done();
    };
    const onAbort = () => {
      settle(() => reject(signal?.reason));
      void worker.terminate();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (message: TrainMessage) =>
      settle(() =>
        message.type === 'done'
          ? resolve(message.model)
          : reject(new WorkerThreadError('category-training', message.message)),
      ),
    );
    worker.once('error', (error) => settle(() => reject(error)));
    worker.once('exit', (code) =>
      settle(() =>
        reject(
          new WorkerThreadError(
            'category-training',
            `category training worker exited with code ${code}`,
            code,
          ),
        ),
      ),
    );
  });
}
