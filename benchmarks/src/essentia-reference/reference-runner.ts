import type { Worker } from 'node:worker_threads';
import { createModuleWorker } from '@earshot/common/module-worker';
import type { ReferenceRequest, ReferenceResponse } from './reference.worker.ts';

/** A recording that takes longer than this (minutes of audio on a loaded machine) is abandoned. */
const TIMEOUT_MS = 15 * 60_000;

/**
 * Runs the essentia.js reference chains (`referenceTree`) in a worker thread, one recording at a time.
 * `close` ends the thread.
 */
export class ReferenceRunner {
  #worker: Worker | undefined;
  #nextId = 1;

  /** `banksFile`: where the worker keeps the filterbanks it reads from essentia.js (see filterbank.ts). */
  constructor(private readonly banksFile?: string) {}

  async tree(samples: Float32Array, sampleRate: number): Promise<Record<string, any>> {
    const worker = this.#thread();
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        done();
        void this.close();
        reject(new Error(`essentia.js reference: no result after ${TIMEOUT_MS / 60_000} min`));
      }, TIMEOUT_MS);
      const onMessage = (message: ReferenceResponse) => {
        if (message.id !== id) return;
        done();
        if ('error' in message) reject(new Error(`essentia.js reference: ${message.error}`));
        else resolve(message.tree);
      };
      const onError = (error: Error) => {
        done();
        reject(error);
      };
      const done = () => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      const copy = samples.slice();
      const request: ReferenceRequest = { id, samples: copy, sampleRate };
      worker.postMessage(request, [copy.buffer]);
    });
  }

  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    if (worker) await worker.terminate();
  }

  #thread(): Worker {
    if (!this.#worker)
      this.#worker = createModuleWorker(new URL('./reference.worker.ts', import.meta.url), {
        workerData: { banksFile: this.banksFile },
      });
    return this.#worker;
  }
}
