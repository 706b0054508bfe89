import os from 'node:os';
import type { Logger } from '@earshot/common';
import { type ConnectionOptions, type Job, Queue, UnrecoverableError, Worker } from 'bullmq';
import {
  type EnqueueOptions,
  executeJob,
  JobDroppedError,
  JobFailedError,
  type JobGuard,
  type JobHooks,
} from '../jobs/execute.ts';
import { type JobPayload, type JobRegistry, jobIdFor } from '../jobs/registry.ts';
import type { FinalFailure, JobRunner, JobRunnerOptions, QueueCounts } from './types.ts';

export const DEFAULT_QUEUE_PREFIX = 'earshot';
export const PIPELINE_QUEUE = 'pipeline';

export interface BullmqRunnerOptions extends JobRunnerOptions {
  redisUrl: string;
  logger: Logger;
  /** Key prefix in Redis; tests use their own so parallel suites do not meet. */
  prefix?: string;
  /**
   * How long a worker's claim on a job lasts without renewal. A worker that dies (SIGKILL) loses its
   * jobs after this, and the stalled-job check hands them to another worker.
   */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  /** How long finished jobs are kept (for metrics and `isPending`). */
  keepCompletedSeconds?: number;
}

const PENDING_STATES = new Set(['waiting', 'active', 'delayed', 'prioritized', 'waiting-children']);

/**
 * Jobs in BullMQ on Redis: any number of processes on any number of machines produce and consume.
 * The producer side is always available; `startWorkers` also consumes in this process.
 */
export class BullmqRunner implements JobRunner {
  readonly kind = 'bullmq' as const;
  readonly queue: Queue<JobPayload>;
  readonly prefix: string;
  private readonly registry: JobRegistry;
  private readonly hooks: JobHooks;
  private readonly guard: JobGuard | undefined;
  private readonly logger: Logger;
  private readonly connection: ConnectionOptions;
  private readonly options: BullmqRunnerOptions;
  private readonly workers: Worker<JobPayload>[] = [];

  constructor(options: BullmqRunnerOptions) {
    this.options = options;
    this.registry = options.registry;
    this.hooks = options.hooks ?? {};
    this.guard = options.guard;
    this.logger = options.logger;
    // maxRetriesPerRequest: null lets commands wait through a Redis restart instead of failing.
    this.connection = { url: options.redisUrl, maxRetriesPerRequest: null };
    this.prefix = options.prefix ?? DEFAULT_QUEUE_PREFIX;
    this.queue = new Queue<JobPayload>(PIPELINE_QUEUE, {
      connection: this.connection,
      prefix: this.prefix,
    });
    this.queue.on('error', (err) => this.logger.warn({ err }, 'queue connection error'));
  }

  async enqueue(name: string, soundId: number, options: EnqueueOptions = {}): Promise<void> {
    const def = this.registry.get(name);
    await this.queue.add(
      name,
      { soundId },
      {
        jobId: jobIdFor(soundId, name),
        lifo: options.front === true,
        attempts: def.attempts,
        backoff: { type: def.backoff.type, delay: def.backoff.delayMs },
        removeOnComplete:
          def.keepFinished === false
            ? true
            : { age: this.options.keepCompletedSeconds ?? 24 * 3600, count: 10_000 },
        removeOnFail: def.keepFinished === false ? true : { age: 7 * 24 * 3600, count: 10_000 },
      },
    );
  }

  async isPending(name: string, soundId: number): Promise<boolean> {
    const job = await this.queue.getJob(jobIdFor(soundId, name));
    if (!job) return false;
    return PENDING_STATES.has(await job.getState());
  }

  async finalFailure(name: string, soundId: number): Promise<FinalFailure | undefined> {
    const job = await this.queue.getJob(jobIdFor(soundId, name));
    if (!job || (await job.getState()) !== 'failed') return undefined;
    const attempts = job.opts.attempts ?? 1;
    const lastStack = job.stacktrace?.at(-1) ?? '';
    return {
      message: job.failedReason ?? 'unknown error',
      // Permanent failures are thrown as UnrecoverableError and stop before the attempts run out.
      permanent: lastStack.startsWith('UnrecoverableError') || job.attemptsMade < attempts,
      attempts: job.attemptsMade,
      at: job.finishedOn ?? job.processedOn ?? job.timestamp,
    };
  }

  async forget(name: string, soundId: number): Promise<void> {
    const job = await this.queue.getJob(jobIdFor(soundId, name));
    if (!job) return;
    const state = await job.getState();
    if (PENDING_STATES.has(state)) return;
    await job.remove();
  }

  async counts(): Promise<QueueCounts> {
    const c = await this.queue.getJobCounts(
      'waiting',
      'prioritized',
      'active',
      'delayed',
      'failed',
      'completed',
    );
    return {
      waiting: (c.waiting ?? 0) + (c.prioritized ?? 0),
      active: c.active ?? 0,
      delayed: c.delayed ?? 0,
      failed: c.failed ?? 0,
      completed: c.completed ?? 0,
    };
  }

  async recentDurations(limit = 500): Promise<Record<string, number[]>> {
    const jobs = await this.queue.getCompleted(0, limit - 1);
    const byName: Record<string, number[]> = {};
    for (const job of jobs.reverse()) {
      if (!job?.processedOn || !job.finishedOn) continue;
      byName[job.name] = [...(byName[job.name] ?? []), job.finishedOn - job.processedOn];
    }
    return byName;
  }

  async recentFailures(limit = 20): Promise<Array<{ name: string; soundId: number; reason: string }>> {
    const jobs = await this.queue.getFailed(0, limit - 1);
    return jobs
      .filter((job) => job)
      .map((job) => ({ name: job.name, soundId: job.data.soundId, reason: job.failedReason }));
  }

  async startWorkers(concurrency: number): Promise<void> {
    const worker = new Worker<JobPayload>(
      PIPELINE_QUEUE,
      (job, _token, signal) => this.process(job, signal),
      {
        connection: this.connection,
        prefix: this.prefix,
        concurrency: Math.max(1, concurrency),
        name: `${os.hostname()}:${process.pid}`,
        lockDuration: this.options.lockDurationMs ?? 30_000,
        // How often a live worker looks for jobs whose lock expired (a dead worker's): with the
        // 30 s lock, a worker host that dies loses its jobs to another within 40 s, not 60.
        stalledInterval: this.options.stalledIntervalMs ?? 10_000,
        // A job whose worker died twice is more likely the cause than the victim.
        maxStalledCount: 2,
        autorun: true,
      },
    );
    worker.on('error', (err) => this.logger.warn({ err }, 'worker connection error'));
    this.workers.push(worker);
    await worker.waitUntilReady();
  }

  /** The job's return value (kept with completed jobs) carries the handler's own time and CPU, for metrics. */
  private async process(job: Job<JobPayload>, signal?: AbortSignal): Promise<JobReturn> {
    const def = this.registry.get(job.name);
    try {
      const { handlerMs, hooksMs, handlerCpu } = await executeJob(
        def,
        {
          name: job.name,
          soundId: job.data.soundId,
          attempt: job.attemptsMade + 1,
          maxAttempts: job.opts.attempts ?? def.attempts,
        },
        {
          hooks: this.hooks,
          enqueue: (name, id, options) => this.enqueue(name, id, options),
          logger: this.logger,
          signal,
          guard: this.guard,
        },
      );
      return {
        handlerMs: round1(handlerMs),
        hooksMs: round1(hooksMs),
        cpuMs: round1(handlerCpu.selfMs),
        childCpuMs: round1(handlerCpu.childrenMs),
      };
    } catch (err) {
      // Another process owns the sound (it got the job when this worker lost BullMQ's lock, say): the
      // job ends here; that owner, or the reconciler once its lease expires, carries the sound on.
      if (err instanceof JobDroppedError) return { handlerMs: 0, hooksMs: 0, cpuMs: 0, childCpuMs: 0 };
      if (err instanceof JobFailedError && err.permanent) throw new UnrecoverableError(err.message);
      throw err instanceof JobFailedError ? toError(err.error) : err;
    }
  }

  async close(graceMs = 30_000): Promise<void> {
    await Promise.all(
      this.workers.map(async (worker) => {
        const graceful = worker.close();
        let timer: NodeJS.Timeout | undefined;
        const timedOut = new Promise<'timeout'>((resolve) => {
          timer = setTimeout(() => resolve('timeout'), graceMs);
        });
        const outcome = await Promise.race([graceful.then(() => 'closed' as const), timedOut]);
        clearTimeout(timer);
        // Jobs still running are left locked; the stalled check gives them to another worker.
        if (outcome === 'timeout') await worker.close(true);
      }),
    );
    await this.queue.close();
  }
}

/** What a completed BullMQ job keeps as its return value. */
export interface JobReturn {
  handlerMs: number;
  /** The catalogue hooks around the handler (record progress, queue the next stage). */
  hooksMs: number;
  /** CPU of the worker process during the handler (all its threads). */
  cpuMs: number;
  /** CPU of the child processes (ffmpeg, ffprobe) that ended during the handler. */
  childCpuMs: number;
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}

function toError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
