import fs from 'node:fs/promises';
import path from 'node:path';
import { testService } from '@earshot/common/testing';
import { fixture } from '@earshot/fixtures';
import { moderate, SoundIntake } from '@earshot/services';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createJobRunner, type JobRunnerService } from '../job-runner.ts';
import type { BullmqRunner } from '../runners/bullmq.ts';
import type { Child } from '../testing/child.ts';
import { startCliWorker } from '../testing/cli-worker.ts';
import { MEDIA_STAGE_FILES } from '../testing/media-files.ts';
import { type PipelineTestEnv, pipelineTestEnv } from '../testing/pipeline-env.ts';
import { dropQueue, uniquePrefix, waitFor } from '../testing/wait.ts';

const redisUrl = await testService('redis');

describe.skipIf(!redisUrl)('worker processes (`earshot worker`) against the real Redis', () => {
  let env: PipelineTestEnv;
  let producer: JobRunnerService;
  let intake: SoundIntake;
  let userId: number;
  const prefix = uniquePrefix('faults');
  const children: Child[] = [];

  beforeAll(async () => {
    env = await pipelineTestEnv('faults');
    // This process hosts the embedded catalogue and only produces; the workers are other processes.
    producer = createJobRunner({
      config: { dataDir: env.dataDir, REDIS_URL: redisUrl, WORKER_CONCURRENCY: 1 },
      logger: env.logger,
      catalogue: env.catalogue,
      queuePrefix: prefix,
    });
    intake = new SoundIntake(env.catalogue.db, producer.storage);
    userId = await env.user('uploader');
  });

  // A case that fails before it stops its workers must not leave them to take the next case's jobs.
  afterEach(async () => {
    const alive = children.filter((c) => c.process.exitCode === null && c.process.signalCode === null);
    for (const c of alive) c.process.kill('SIGKILL');
    await Promise.all(alive.map((c) => c.exited));
  });

  afterAll(async () => {
    for (const c of children) if (c.process.exitCode === null) c.process.kill('SIGKILL');
    await producer?.close(0);
    await dropQueue(redisUrl!, prefix);
    await env?.dispose();
  });

  const worker = () => {
    const child = startCliWorker({ dataDir: env.dataDir, redisUrl: redisUrl!, prefix });
    children.push(child);
    return child;
  };
  const sound = (id: number) =>
    env.catalogue.db.selectFrom('sounds').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  /** The media job of the sound is running in a worker (its handler has started writing). */
  const inMediaStage = (id: number) =>
    waitFor(
      async () => {
        const job = await (producer.runner as BullmqRunner).queue.getJob(`${id}-media`);
        if (!job || (await job.getState()) !== 'active') return false;
        const entries = await fs.readdir(producer.storage.soundDir(id)).catch(() => [] as string[]);
        return entries.some((e) => e.startsWith('.staging-media-'));
      },
      { timeoutMs: 60_000, intervalMs: 20, what: 'the media job to be running' },
    );

  it('SIGKILL mid-job: another worker finishes the sound, no duplicate or half-written files', async () => {
    const id = await intake.create({ userId, file: fixture('clicks-120bpm') });
    const first = worker();
    await first.waitForOutput('ready');
    await producer.pipeline.submit(id);
    await inMediaStage(id);
    await new Promise((resolve) => setTimeout(resolve, 200));
    first.process.kill('SIGKILL');
    await first.exited;
    const killedAt = await sound(id);
    expect(killedAt.processing_state).toBe('Processing');
    expect(killedAt.processing_stage).toBe('media');

    const second = worker();
    const done = await waitFor(
      async () => {
        const s = await sound(id);
        return s.processing_state === 'Processed' || s.processing_state === 'Failed' ? s : undefined;
      },
      { timeoutMs: 120_000, what: 'the second worker to finish the sound' },
    );
    expect(done.processing_state).toBe('Processed');
    const dir = producer.storage.soundDir(id);
    const work = await fs.readdir(path.join(dir, 'work')).catch(() => []);
    expect((await fs.readdir(dir)).sort(), `work/ holds ${JSON.stringify(work)}`).toEqual([
      'analysis',
      'media',
      'original.wav',
    ]);
    expect((await fs.readdir(path.join(dir, 'media'))).sort()).toEqual(MEDIA_STAGE_FILES);
    for (const key of ['preview-hq-mp3', 'preview-lq-ogg', 'waveform_l', 'spectral_m']) {
      const file = path.join(env.dataDir, done.media_paths[key]);
      expect((await fs.stat(file)).size, key).toBeGreaterThan(0);
    }
    // Every preview lasts the full 10 s (a half-written one would be cut short or corrupt).
    const { probeFile } = await import('@earshot/core');
    for (const name of ['preview-hq.mp3', 'preview-lq.ogg']) {
      const probe = await probeFile(path.join(dir, 'media', name));
      expect(probe.duration, name).toBeCloseTo(10, 0);
    }
    expect(done.moderation_state).toBe('pending_moderation');
    expect(await moderate(env.catalogue.db, [id], 'approve')).toEqual([id]);
    const visible = await sound(id);
    expect([visible.processing_state, visible.moderation_state]).toEqual(['Processed', 'ok']);

    second.process.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });

  it('SIGTERM mid-job: the running job finishes, the worker exits, the next worker carries on', async () => {
    const id = await intake.create({ userId, file: fixture('loudness-pink-m23lufs') });
    const first = worker();
    await first.waitForOutput('ready');
    await producer.pipeline.submit(id);
    await inMediaStage(id);
    first.process.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    // The media job was allowed to finish: the sound moved on to the next stage, waiting in the queue.
    const after = await sound(id);
    expect(after.processing_stage, first.errors()).toBe('analysis');
    expect(after.processing_state).toBe('Processing');
    expect(after.media_paths['preview-hq-mp3']).toBeTruthy();
    expect(await producer.runner.isPending('analysis', id)).toBe(true);

    const second = worker();
    await waitFor(async () => (await sound(id)).processing_state === 'Processed', {
      timeoutMs: 60_000,
      what: 'the next worker to finish the sound',
    });
    second.process.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });
});
