import { existsSync } from 'node:fs';
import { Worker, type WorkerOptions } from 'node:worker_threads';

const tsxBootstrap = new URL('./module-worker-tsx.mjs', import.meta.url);

/**
 * Starts a worker thread on one of this project's modules, named by its source URL
 * (`new URL('./x.worker.ts', import.meta.url)`). Compiled code has no `.ts` beside it, so the
 * `.js` file the build wrote runs directly; from the sources (tests, benchmarks) the thread gets
 * tsx first, because worker threads do not inherit their parent's loader. `workerData` and the
 * other options pass through unchanged.
 */
export function createModuleWorker(entry: URL, options: WorkerOptions = {}): Worker {
  if (entry.pathname.endsWith('.ts') && !existsSync(entry)) {
    return new Worker(new URL(entry.href.replace(/\.ts$/, '.js')), options);
  }
  return new Worker(tsxBootstrap, { ...options, argv: [...(options.argv ?? []), entry.href] });
}
