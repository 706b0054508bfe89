import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { createModuleWorker } from './module-worker.ts';

function firstMessage(worker: Worker): Promise<unknown> {
  return new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

describe('createModuleWorker', () => {
  it('runs a module from its sources in a worker thread and passes workerData through', async () => {
    const worker = createModuleWorker(new URL('./testing/doubling-worker.ts', import.meta.url), {
      workerData: { n: 20 },
    });
    expect(await firstMessage(worker)).toBe(42);
    await worker.terminate();
  });

  it('runs the compiled .js file when the named .ts source is not beside it (a built package)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-module-worker-'));
    try {
      // Plain JavaScript that tsx would also run: what matters is which file is chosen.
      fs.writeFileSync(
        path.join(dir, 'w.js'),
        "import { parentPort, workerData } from 'node:worker_threads';\nparentPort.postMessage('js:' + workerData.n);\n",
      );
      fs.writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}');
      const worker = createModuleWorker(pathToFileURL(path.join(dir, 'w.ts')), { workerData: { n: 7 } });
      expect(await firstMessage(worker)).toBe('js:7');
      await worker.terminate();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
