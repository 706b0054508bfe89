import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '@earshot/common';
import { testService } from '@earshot/common/testing';
import { SoundStorage } from '@earshot/services';
import { afterAll, describe, expect, it } from 'vitest';
import { JobRegistry } from '../jobs/registry.ts';
import { type Child, startChild } from '../testing/child.ts';
import { dropQueue, uniquePrefix, waitFor } from '../testing/wait.ts';
import { BullmqRunner } from './bullmq.ts';

const redisUrl = await testService('redis');
const workerModule = new URL('../testing/file-writer-worker.ts', import.meta.url);

describe.skipIf(!redisUrl)('a BullMQ worker killed mid-job (SIGKILL)', () => {
  const children: Child[] = [];
  const prefix = uniquePrefix('crash');
  afterAll(async () => {
    for (const c of children) if (c.process.exitCode === null) c.process.kill('SIGKILL');
    await dropQueue(redisUrl!, prefix);
  });

  it('is replaced by another worker that finishes the job; no duplicate or half-written files', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'earshot-crash-'));
    const producer = new BullmqRunner({
      registry: new JobRegistry([
        {
          name: 'write',
          timeoutMs: 1,
          attempts: 2,
          backoff: { type: 'fixed', delayMs: 1 },
          handler: async () => {},
        },
      ]),
      redisUrl: redisUrl!,
      prefix,
      logger: createLogger('silent'),
    });

    const first = startChild(workerModule, [redisUrl!, prefix, dataDir]);
    children.push(first);
    await first.waitForOutput('ready');
    await producer.enqueue('write', 42);
    await first.waitForOutput('begin 42');
    // Let it write part of its output, then kill it without a chance to clean up.
    const storage = new SoundStorage(dataDir);
    await waitFor(async () => {
      const entries = await fs.readdir(storage.soundDir(42)).catch(() => [] as string[]);
      const staging = entries.find((e) => e.startsWith('.staging-media-'));
      return staging && (await fs.readdir(path.join(storage.soundDir(42), staging))).length >= 2;
    });
    first.process.kill('SIGKILL');
    await first.exited;

    const second = startChild(workerModule, [redisUrl!, prefix, dataDir]);
    children.push(second);
    await second.waitForOutput('begin 42');
    const done = await waitFor(
      async () => (await fs.readFile(path.join(dataDir, 'done.log'), 'utf8').catch(() => '')).trim(),
      { what: 'the second worker to finish the job' },
    );

    expect(done.split('\n')).toEqual([`42 ${second.process.pid}`]);
    expect((await fs.readdir(storage.soundDir(42))).sort()).toEqual(['media']);
    const files = (await fs.readdir(storage.outputDir(42, 'media'))).sort();
    expect(files).toEqual(['part-0.bin', 'part-1.bin', 'part-2.bin', 'part-3.bin', 'part-4.bin']);
    for (const [i, name] of files.entries()) {
      const content = await fs.readFile(path.join(storage.outputDir(42, 'media'), name));
      expect(content.length).toBe(64 * 1024);
      expect(content.every((b) => b === i)).toBe(true);
    }
    expect(await producer.counts()).toMatchObject({ waiting: 0, active: 0, completed: 1, failed: 0 });
    second.process.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    await producer.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  });
});
