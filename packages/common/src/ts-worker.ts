import { Worker, type WorkerOptions } from 'node:worker_threads';

const bootstrap = new URL('./ts-worker-bootstrap.mjs', import.meta.url);

/**
 * Starts a worker thread running a TypeScript module (worker threads do not inherit tsx from the
 * parent). `workerData` and the rest of the options pass through unchanged.
 */
export function createTsWorker(entry: URL, options: WorkerOptions = {}): Worker {
  return new Worker(bootstrap, { ...options, argv: [...(options.argv ?? []), entry.href] });
}
