import { createLogger } from '@earshot/common';
import { testService } from '@earshot/common/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { PermanentJobError } from '../jobs/errors.ts';
import type { JobHooks, JobRef } from '../jobs/execute.ts';
import { type JobDefinition, JobRegistry } from '../jobs/registry.ts';
import { metricsAsPrometheus, pipelineMetrics } from '../metrics.ts';
import { dropQueue, uniquePrefix, waitFor } from '../testing/wait.ts';
import { BullmqRunner } from './bullmq.ts';
import { InProcessRunner } from './in-process.ts';
import type { JobRunner } from './types.ts';

const logger = createLogger('silent');
const redisUrl = await testService('redis');

interface Recorder {
  events: string[];
  hooks: JobHooks;
}

/** Hooks that log what happened and chain `first` → `second`, as the pipeline chains its stages. */
function recorder(): Recorder {
  const events: string[] = [];
  const tag = (job: JobRef) => `${job.name}#${job.soundId}@${job.attempt}`;
  return {
    events,
    hooks: {
      started: async (job) => void events.push(`start ${tag(job)}`),
      completed: async (job, { enqueue }) => {
        events.push(`done ${tag(job)}`);
        if (job.name === 'first') await enqueue('second', job.soundId);
      },
      failed: async (job, { error, final }) =>
        void events.push(`${final ? 'FAILED' : 'retry'} ${tag(job)}: ${(error as Error).message}`),
    },
  };
}

function def(
  name: string,
  handler: JobDefinition['handler'],
  extra: Partial<JobDefinition> = {},
): JobDefinition {
  return { name, handler, timeoutMs: 5_000, attempts: 1, backoff: { type: 'fixed', delayMs: 20 }, ...extra };
}

type MakeRunner = (registry: JobRegistry, hooks: JobHooks) => JobRunner;

const runners: Array<[string, MakeRunner | undefined]> = [
  ['in-process', (registry, hooks) => new InProcessRunner({ registry, hooks, logger })],
  [
    'bullmq',
    redisUrl
      ? (registry, hooks) =>
          new BullmqRunner({ registry, hooks, logger, redisUrl, prefix: uniquePrefix('runners') })
      : undefined,
  ],
];

describe.each(runners)('%s runner', (_kind, make) => {
  const open: JobRunner[] = [];
  afterEach(async () => {
    for (const runner of open.splice(0)) {
      await runner.close(1_000);
      if (runner instanceof BullmqRunner) await dropQueue(redisUrl!, runner.prefix);
    }
  });

  const start = async (definitions: JobDefinition[], concurrency = 2) => {
    const rec = recorder();
    const runner = make!(new JobRegistry(definitions), rec.hooks);
    open.push(runner);
    await runner.startWorkers(concurrency);
    return { runner, events: rec.events };
  };

  const drained = (runner: JobRunner) => async () => {
    const c = await runner.counts();
    return c.waiting + c.active + c.delayed === 0;
  };

  it.skipIf(!make)('runs a job, then the job its completion queues, with the same hooks', async () => {
    const seen: number[] = [];
    const { runner, events } = await start([
      def('first', async (ctx) => {
        await ctx.progress(50);
        seen.push(ctx.soundId);
      }),
      def('second', async (ctx) => void seen.push(-ctx.soundId)),
    ]);
    await runner.enqueue('first', 7);
    await waitFor(() => events.includes('done second#7@1'), { what: 'the chained job' });
    expect(seen).toEqual([7, -7]);
    expect(events).toEqual(['start first#7@1', 'done first#7@1', 'start second#7@1', 'done second#7@1']);
    await waitFor(drained(runner), { what: 'an empty queue' });
    const metrics = await pipelineMetrics(runner);
    expect(metrics.queue).toMatchObject({ waiting: 0, active: 0, completed: 2, failed: 0 });
    expect(Object.keys(metrics.durations).sort()).toEqual(['first', 'second']);
    expect(metrics.durations.first.count).toBe(1);
    expect(metricsAsPrometheus(metrics)).toContain('earshot_queue_jobs{state="completed"} 2');
  });

  it.skipIf(!make)('leaves no timer behind once closed, so a finished command exits (issue 19)', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    const { runner, events } = await start([def('first', async () => {})]);
    await runner.enqueue('first', 3);
    await waitFor(() => events.includes('done first#3@1'), { what: 'the job' });
    await waitFor(drained(runner), { what: 'an empty queue' });
    open.splice(open.indexOf(runner), 1);
    await runner.close(60_000);
    if (runner instanceof BullmqRunner) await dropQueue(redisUrl!, runner.prefix);
    // A grace timer left running kept `earshot import` alive for the whole grace period.
    expect(timers()).toBeLessThanOrEqual(before);
  });

  it.skipIf(!make)('drops a second add of a job that is still pending (fixed job ids)', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let runs = 0;
    const { runner, events } = await start([
      def('first', async () => {
        runs++;
        await gate;
      }),
      def('second', async () => {}),
    ]);
    await runner.enqueue('first', 1);
    await waitFor(() => events.includes('start first#1@1'));
    expect(await runner.isPending('first', 1)).toBe(true);
    await runner.enqueue('first', 1);
    await runner.enqueue('first', 1);
    release();
    await waitFor(() => events.includes('done second#1@1'));
    await waitFor(drained(runner));
    expect(runs).toBe(1);
    expect(await runner.isPending('first', 1)).toBe(false);
  });

  it.skipIf(!make)('retries a failing job with backoff until it succeeds', async () => {
    let calls = 0;
    const { runner, events } = await start([
      def(
        'first',
        async () => {
          calls++;
          if (calls < 3) throw new Error(`flaky ${calls}`);
        },
        { attempts: 3, backoff: { type: 'exponential', delayMs: 30 } },
      ),
      def('second', async () => {}),
    ]);
    await runner.enqueue('first', 2);
    await waitFor(() => events.includes('done second#2@1'));
    expect(events.filter((e) => e.startsWith('retry') || e.startsWith('FAILED'))).toEqual([
      'retry first#2@1: flaky 1',
      'retry first#2@2: flaky 2',
    ]);
    expect(events).toContain('done first#2@3');
  });

  it.skipIf(!make)('gives up after the last attempt and does not retry a permanent failure', async () => {
    const { runner, events } = await start([
      def(
        'first',
        async (ctx) => {
          if (ctx.soundId === 3) throw new PermanentJobError('not an audio file');
          throw new Error('always broken');
        },
        { attempts: 2, backoff: { type: 'fixed', delayMs: 20 } },
      ),
    ]);
    await runner.enqueue('first', 3);
    await runner.enqueue('first', 4);
    await waitFor(() => events.filter((e) => e.startsWith('FAILED')).length === 2);
    await waitFor(drained(runner));
    expect(events.filter((e) => e.includes('#3'))).toEqual([
      'start first#3@1',
      'FAILED first#3@1: not an audio file',
    ]);
    expect(events.filter((e) => e.includes('#4'))).toEqual([
      'start first#4@1',
      'retry first#4@1: always broken',
      'start first#4@2',
      'FAILED first#4@2: always broken',
    ]);
    expect((await runner.counts()).failed).toBe(2);
  });

  it.skipIf(!make)(
    'aborts a job that overruns its timeout and tells the handler through its signal',
    async () => {
      let abortedWith: unknown;
      const { runner, events } = await start([
        def(
          'first',
          (ctx) =>
            new Promise<void>((_, reject) => {
              ctx.signal.addEventListener('abort', () => {
                abortedWith = ctx.signal.reason;
                reject(ctx.signal.reason);
              });
            }),
          { timeoutMs: 200 },
        ),
      ]);
      await runner.enqueue('first', 5);
      await waitFor(() => events.some((e) => e.startsWith('FAILED first#5')));
      expect(events).toContain('FAILED first#5@1: job first did not finish within 200 ms');
      expect((abortedWith as Error).name).toBe('JobTimeoutError');
    },
  );

  it.skipIf(!make)('lets a finished job be queued again once forgotten (reprocessing)', async () => {
    let runs = 0;
    const { runner, events } = await start([def('first', async () => void runs++)]);
    await runner.enqueue('first', 6);
    await waitFor(() => events.includes('done first#6@1'));
    await waitFor(drained(runner));
    await runner.forget('first', 6);
    await runner.enqueue('first', 6);
    await waitFor(() => runs === 2, { what: 'the second run' });
  });
});

describe('in-process runner and an unreachable catalogue', () => {
  it('runs a job again, at the same attempt, when its lease could not be taken because the database was gone', async () => {
    let guardCalls = 0;
    const runs: number[] = [];
    const runner = new InProcessRunner({
      registry: new JobRegistry([
        def('only', async (ctx) => void runs.push(ctx.attempt), { backoff: { type: 'fixed', delayMs: 20 } }),
      ]),
      hooks: recorder().hooks,
      logger,
      // The embedded host died while the lease was being taken (what the fault test saw).
      guard: async (_job, run) => {
        guardCalls++;
        if (guardCalls === 1) throw Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
        return run();
      },
    });
    try {
      await runner.startWorkers(1);
      await runner.enqueue('only', 8);
      await waitFor(() => runs.length === 1, { what: 'the job run once the catalogue is back' });
      expect(runs).toEqual([1]);
      const counts = await runner.counts();
      expect(counts.failed).toBe(0);
    } finally {
      await runner.close(1_000);
    }
  });
});
