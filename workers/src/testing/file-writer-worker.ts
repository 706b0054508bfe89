/**
 * A worker process for the fault tests of the runner: each job writes a few files slowly into the
 * sound's folder (through SoundStorage, like the real stages) and records its completion.
 * argv: <redisUrl> <prefix> <dataDir>
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { createLogger } from '@earshot/common';
import { SoundStorage } from '@earshot/services';
import { JobRegistry } from '../jobs/registry.ts';
import { BullmqRunner } from '../runners/bullmq.ts';

const [redisUrl, prefix, dataDir] = process.argv.slice(2);
const storage = new SoundStorage(dataDir);
export const FILES_PER_JOB = 5;

const registry = new JobRegistry([
  {
    name: 'write',
    timeoutMs: 30_000,
    attempts: 2,
    backoff: { type: 'fixed', delayMs: 100 },
    handler: async (ctx) => {
      process.stdout.write(`begin ${ctx.soundId}\n`);
      await storage.replaceStageOutput(ctx.soundId, 'media', async (dir) => {
        for (let i = 0; i < FILES_PER_JOB; i++) {
          await fs.writeFile(path.join(dir, `part-${i}.bin`), Buffer.alloc(64 * 1024, i));
          await new Promise((resolve) => setTimeout(resolve, 150));
        }
      });
    },
  },
]);

const runner = new BullmqRunner({
  registry,
  redisUrl,
  prefix,
  logger: createLogger('silent'),
  lockDurationMs: 1_000,
  stalledIntervalMs: 500,
  hooks: {
    completed: async (job) => {
      await fs.appendFile(path.join(dataDir, 'done.log'), `${job.soundId} ${process.pid}\n`);
    },
  },
});
await runner.startWorkers(1);
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  void runner.close(10_000).then(() => process.exit(0));
});
