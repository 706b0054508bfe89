import { testService } from '@earshot/common/testing';
import { fixture } from '@earshot/fixtures';
import { SoundIntake } from '@earshot/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobRunner, type JobRunnerService } from '../job-runner.ts';
import { type PipelineTestEnv, pipelineTestEnv } from '../testing/pipeline-env.ts';
import { PrivateRedis } from '../testing/redis-server.ts';
import { waitFor } from '../testing/wait.ts';

// The suite needs redis-server itself (it restarts its own); the shared Redis being up says it is installed.
const available = !!(await testService('redis'));

describe.skipIf(!available)('Redis restarted while jobs are queued', () => {
  let env: PipelineTestEnv;
  let redis: PrivateRedis;
  let service: JobRunnerService;

  beforeAll(async () => {
    env = await pipelineTestEnv('redis-restart');
    redis = await PrivateRedis.start();
  });

  afterAll(async () => {
    await service?.close(2_000);
    await redis?.stop();
    await env?.dispose();
  });

  it('loses nothing: the workers reconnect and the queue drains once Redis is back', async () => {
    service = createJobRunner({
      config: { dataDir: env.dataDir, REDIS_URL: redis.url, WORKER_CONCURRENCY: 1 },
      logger: env.logger,
      catalogue: env.catalogue,
      runWorkers: true,
      reconcileIntervalMs: 1_000,
    });
    await service.start();
    const intake = new SoundIntake(env.catalogue.db, service.storage);
    const userId = await env.user('uploader');
    const names = ['sine-a3', 'harmonic-c4', 'triad-g-major', 'noise-pink', 'fmt-ogg', 'fmt-flac-24'];
    const ids: number[] = [];
    for (const name of names) {
      const id = await intake.create({ userId, file: fixture(name) });
      await service.pipeline.submit(id);
      ids.push(id);
    }
    const states = async () =>
      env.catalogue.db
        .selectFrom('sounds')
        .select(['id', 'processing_state'])
        .where('id', 'in', ids)
        .execute();
    // Restart while the first sound is being processed and the rest wait in the queue.
    await waitFor(async () => (await states()).some((s) => s.processing_state === 'Processing'), {
      intervalMs: 10,
    });
    expect((await service.runner.counts()).waiting).toBeGreaterThan(0);
    await redis.down();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await redis.up();

    const final = await waitFor(
      async () => {
        const rows = await states();
        return rows.every((r) => r.processing_state === 'Processed' || r.processing_state === 'Failed')
          ? rows
          : undefined;
      },
      { timeoutMs: 120_000, what: 'every sound to be processed after the restart' },
    );
    expect(final.map((r) => r.processing_state)).toEqual(ids.map(() => 'Processed'));
    await waitFor(async () => {
      const c = await service.runner.counts();
      return c.waiting + c.active + c.delayed === 0;
    });
  });
});
