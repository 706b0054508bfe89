import path from 'node:path';
import { testService } from '@earshot/common/testing';
import { fixture } from '@earshot/fixtures';
import { reprocessFailed, SoundIntake } from '@earshot/services';
import { afterEach, describe, expect, it } from 'vitest';
import { createJobRunner, type JobRunnerService } from '../job-runner.ts';
import { coreAnalyzer } from '../pipeline/core-analyzer.ts';
import { CoreMediaTools } from '../pipeline/core-tools.ts';
import type { MediaTools } from '../pipeline/tools.ts';
import { ServerDatabase } from '../testing/server-database.ts';
import { dropQueue, uniquePrefix, waitFor } from '../testing/wait.ts';

const postgresUrl = await testService('postgres');
const redisUrl = await testService('redis');

/**
 * The real tools, except that the first probe waits at a gate: the test takes the catalogue down
 * while the job is inside its handler, so both the job and the write of its failure fail.
 */
function gatedTools(db: ServerDatabase): { tools: MediaTools; entered: Promise<void>; open: () => void } {
  const real = new CoreMediaTools(coreAnalyzer, db.logger, { corePerJob: true });
  let open!: () => void;
  let enter!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const entered = new Promise<void>((resolve) => {
    enter = resolve;
  });
  let first = true;
  const tools: MediaTools = {
    probe: async (file, name) => {
      if (first) {
        first = false;
        enter();
        await gate;
      }
      return real.probe(file, name);
    },
    renderMedia: (file, dir, options) => real.renderMedia(file, dir, options),
    analyze: (file, dir, options) => real.analyze(file, dir, options),
    similarityVectors: (analysis) => real.similarityVectors(analysis),
  };
  return { tools, entered, open };
}

const runners: Array<[string, string | undefined]> = [
  ['bullmq', redisUrl],
  ['in-process', undefined],
];

describe.skipIf(!postgresUrl || !redisUrl)('a job that fails while the catalogue is down', () => {
  let db: ServerDatabase | undefined;
  let service: JobRunnerService | undefined;
  let prefix: string | undefined;

  afterEach(async () => {
    await db?.up();
    await service?.close(2_000);
    if (prefix && redisUrl) await dropQueue(redisUrl, prefix);
    await db?.dispose();
    db = service = prefix = undefined;
  });

  it.each(runners)(
    'does not leave the sound "Processing" for good (%s runner)',
    async (kind, redis) => {
      db = await ServerDatabase.create(postgresUrl!, 'catalogue_down');
      prefix = redis ? uniquePrefix('catalogue-down') : undefined;
      const gated = gatedTools(db);
      service = createJobRunner({
        config: { dataDir: db.dataDir, REDIS_URL: redis, WORKER_CONCURRENCY: 1 },
        logger: db.logger,
        catalogue: db.catalogue,
        runWorkers: true,
        queuePrefix: prefix,
        reconcileIntervalMs: 300,
        tools: gated.tools,
        // One attempt: the failure the catalogue misses is the final one.
        policies: { probe: { attempts: 1, backoff: { type: 'fixed', delayMs: 300 } } },
      });
      await service.start();
      const intake = new SoundIntake(db.catalogue.db, service.storage);
      const id = await intake.create({ userId: await db.user('uploader'), file: fixture('sine-a4') });
      await service.pipeline.submit(id);

      await gated.entered;
      await db.down();
      gated.open();
      // The probe's write fails, so the job fails; recording that failure fails too.
      if (kind === 'bullmq') {
        await waitFor(() => service!.runner.finalFailure('probe', id), {
          timeoutMs: 30_000,
          what: 'the probe job to fail',
        });
      } else {
        await waitFor(async () => (await service!.runner.counts()).delayed > 0, {
          what: 'the failed probe job to wait for another run',
        });
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await db.up();

      const sound = () =>
        db!.catalogue.db.selectFrom('sounds').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      const settled = await waitFor(
        async () => {
          const s = await sound().catch(() => undefined);
          return s && (s.processing_state === 'Processed' || s.processing_state === 'Failed') ? s : undefined;
        },
        { timeoutMs: 90_000, what: `sound ${id} to leave "Processing"` },
      );
      if (kind === 'bullmq') {
        // The queue kept the failure; the reconciler records it once the catalogue is back.
        expect(settled.processing_state).toBe('Failed');
        expect(settled.processing_stage).toBe('probe');
        expect(settled.processing_error?.split('\n')[0]).toBe(
          'Processing failed while validating and probing; it can be retried.',
        );
        expect(await reprocessFailed(db.catalogue.db, service.pipeline)).toEqual([id]);
      } else {
        // The in-process runner kept nothing: it ran the job again once the catalogue answered.
        expect(settled.processing_state).toBe('Processed');
      }
      const done = await waitFor(
        async () => {
          const s = await sound();
          return s.processing_state === 'Processed' ? s : undefined;
        },
        { timeoutMs: 90_000, what: `sound ${id} to be processed` },
      );
      expect(done.processing_error).toBeNull();
      expect(path.basename(done.media_paths.analysis_stats)).toBe('analysis_stats.json');
    },
    180_000,
  );
});
