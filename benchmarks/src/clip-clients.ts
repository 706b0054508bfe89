import { createModuleWorker } from '@earshot/common';

export interface ClipClientsJob {
  origin: string;
  key: string;
  clip: Uint8Array;
  clients: number;
  seconds: number;
}

export interface ClipClientsResult {
  /** Milliseconds of every answered clip (200 with results), in completion order. */
  latencies: number[];
  failed: number;
}

/**
 * `clients` closed-loop clients posting the clip for `seconds`, in a worker thread of their own
 * (clip-clients.worker.ts says why).
 */
export function runClipClients(job: ClipClientsJob): Promise<ClipClientsResult> {
  const worker = createModuleWorker(new URL('./clip-clients.worker.ts', import.meta.url), {
    workerData: job,
  });
  return new Promise((resolve, reject) => {
    worker.once('message', (result: ClipClientsResult) => {
      resolve(result);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`clip clients thread exited with ${code}`)));
  });
}
