// Worker-thread entry: trains the category model. Training is a synchronous loop of up to a minute
// or two on a large catalogue; here it leaves the event loop of the process that asked (an API
// server running its jobs in-process) free.
import { parentPort, workerData } from 'node:worker_threads';
import { trainCategoryModel } from './category-model.ts';
import type { TrainMessage, TrainRequest } from './train-protocol.ts';

const post = (message: TrainMessage) => parentPort?.postMessage(message);

try {
  post({ type: 'done', model: trainCategoryModel((workerData as TrainRequest).examples) });
} catch (error) {
  post({ type: 'error', message: error instanceof Error ? error.message : String(error) });
}
