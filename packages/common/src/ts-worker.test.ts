import { describe, expect, it } from 'vitest';
import { createTsWorker } from './ts-worker.ts';

describe('createTsWorker', () => {
  it('runs a TypeScript module in a worker thread and passes workerData through', async () => {
    const worker = createTsWorker(new URL('./testing/doubling-worker.ts', import.meta.url), {
      workerData: { n: 20 },
    });
    const message = await new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    expect(message).toBe(42);
    await worker.terminate();
  });
});
