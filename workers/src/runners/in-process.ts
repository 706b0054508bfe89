import { isCatalogueUnavailable } from '@earshot/catalogue';
import type { Logger } from '@earshot/common';
import {
  type EnqueueOptions,
  executeJob,
  JobDroppedError,
  JobFailedError,
  type JobGuard,
  type JobHooks,
} from '../jobs/execute.ts';
import { backoffDelay, type JobRegistry, jobIdFor } from '../jobs/registry.ts';
import type { JobRunner, JobRunnerOptions, QueueCounts } from './types.ts';

const KEEP_RECENT = 1000;
const MAX_RETRY_DELAY_MS = 60_000;

interface QueuedJob {
  name: string;
  soundId: number;
  attempt: number;
}

/**
 * Runs jobs in this process, for the embedded setup without Redis. Its queue lives in memory: what
 * a crash loses, the pipeline resumes from the catalogue on the next start.
 */
export class InProcessRunner implements JobRunner {
  readonly kind = 'in-process' as const;
  private readonly registry: JobRegistry;
  private readonly hooks: JobHooks;
  private readonly guard: JobGuard | undefined;
  private readonly logger: Logger;
  private readonly waiting: QueuedJob[] = [];
  private readonly delayed = new Map<string, NodeJS.Timeout>();
  private readonly active = new Map<string, Promise<void>>();
  private readonly abortOnClose = new AbortController();
  private concurrency = 0;
  private closing = false;
  private completedCount = 0;
  private failedCount = 0;
  private idleWaiters: Array<() => void> = [];
  private readonly durations = new Map<string, number[]>();
  private readonly failures: Array<{ name: string; soundId: number; reason: string }> = [];

  constructor(options: JobRunnerOptions & { logger: Logger }) {
    this.registry = options.registry;
    this.hooks = options.hooks ?? {};
    this.guard = options.guard;
    this.logger = options.logger;
  }

  async enqueue(name: string, soundId: number, options: EnqueueOptions = {}): Promise<void> {
    this.registry.get(name);
    // After close, the catalogue still says the sound waits for this job: the next start resumes it.
    if (this.closing) return;
    if (await this.isPending(name, soundId)) return;
    const job = { name, soundId, attempt: 1 };
    if (options.front) this.waiting.unshift(job);
    else this.waiting.push(job);
    this.pump();
  }

  /**
   * The in-memory queue keeps no failed jobs: an unfinished sound whose job is gone is simply
   * queued again by the reconciler (a retry).
   */
  async finalFailure(): Promise<undefined> {
    return undefined;
  }

  async isPending(name: string, soundId: number): Promise<boolean> {
    const id = jobIdFor(soundId, name);
    return (
      this.active.has(id) ||
      this.delayed.has(id) ||
      this.waiting.some((j) => j.name === name && j.soundId === soundId)
    );
  }

  async forget(name: string, soundId: number): Promise<void> {
    // Finished jobs leave nothing behind here; a pending one is left alone.
    void name;
    void soundId;
  }

  async counts(): Promise<QueueCounts> {
    return {
      waiting: this.waiting.length,
      active: this.active.size,
      delayed: this.delayed.size,
      failed: this.failedCount,
      completed: this.completedCount,
    };
  }

  async recentDurations(limit = 500): Promise<Record<string, number[]>> {
    return Object.fromEntries([...this.durations].map(([name, list]) => [name, list.slice(-limit)]));
  }

  async recentFailures(limit = 20): Promise<Array<{ name: string; soundId: number; reason: string }>> {
    return this.failures.slice(0, limit);
  }

  async startWorkers(concurrency: number): Promise<void> {
    this.concurrency = Math.max(1, concurrency);
    this.pump();
  }

  /** Resolves when nothing is waiting, delayed or running. */
  whenIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async close(graceMs = 30_000): Promise<void> {
    this.closing = true;
    for (const timer of this.delayed.values()) clearTimeout(timer);
    this.delayed.clear();
    this.waiting.length = 0;
    const running = Promise.allSettled([...this.active.values()]);
    // The grace timer is cleared as soon as the jobs end: left running, it kept a finished
    // `earshot import` or `reprocess` alive for the whole grace period (issue 19).
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), graceMs);
    });
    const finished = await Promise.race([running.then(() => true as const), graceOver]);
    clearTimeout(timer);
    if (!finished) {
      this.abortOnClose.abort(new Error('the job runner is shutting down'));
      await running;
    }
    this.notifyIdle();
  }

  private isIdle(): boolean {
    return this.waiting.length === 0 && this.delayed.size === 0 && this.active.size === 0;
  }

  private notifyIdle(): void {
    if (!this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private pump(): void {
    while (!this.closing && this.active.size < this.concurrency && this.waiting.length > 0) {
      const job = this.waiting.shift()!;
      const id = jobIdFor(job.soundId, job.name);
      const run = this.run(job).finally(() => {
        this.active.delete(id);
        this.pump();
        this.notifyIdle();
      });
      this.active.set(id, run);
    }
  }

  private async run(job: QueuedJob): Promise<void> {
    const def = this.registry.get(job.name);
    try {
      const { durationMs } = await executeJob(
        def,
        { name: job.name, soundId: job.soundId, attempt: job.attempt, maxAttempts: def.attempts },
        {
          hooks: this.hooks,
          enqueue: (name, soundId, options) => this.enqueue(name, soundId, options),
          logger: this.logger,
          signal: this.abortOnClose.signal,
          guard: this.guard,
        },
      );
      this.completedCount++;
      const list = this.durations.get(job.name) ?? [];
      list.push(durationMs);
      if (list.length > KEEP_RECENT) list.shift();
      this.durations.set(job.name, list);
    } catch (err) {
      // Another process owns the sound: nothing to retry or count here.
      if (err instanceof JobDroppedError) {
        this.logger.debug({ job: job.name, soundId: job.soundId, reason: err.message }, 'job dropped');
        return;
      }
      // A failure the catalogue did not hear of would leave the sound "Processing" for good: the
      // job runs again later (its final attempt again), until the outcome can be recorded. The same
      // when the catalogue could not be reached around the attempt (taking the lease, say): the
      // database is restarting or changing hosts, which is no fault of the job.
      const unreachable = !(err instanceof JobFailedError) && isCatalogueUnavailable(err);
      if (unreachable) {
        this.logger.warn({ job: job.name, soundId: job.soundId, err }, 'job waits for the catalogue');
      }
      const unrecorded = unreachable || (err instanceof JobFailedError && err.final && !err.recorded);
      if (!unrecorded && (!(err instanceof JobFailedError) || err.final)) {
        if (!(err instanceof JobFailedError)) this.logger.error({ err }, 'job runner error');
        this.failedCount++;
        this.failures.unshift({ name: job.name, soundId: job.soundId, reason: (err as Error).message });
        if (this.failures.length > KEEP_RECENT) this.failures.pop();
        return;
      }
      if (this.closing) return;
      const id = jobIdFor(job.soundId, job.name);
      const timer = setTimeout(
        () => {
          this.delayed.delete(id);
          this.waiting.push({ ...job, attempt: unrecorded ? job.attempt : job.attempt + 1 });
          this.pump();
        },
        Math.min(backoffDelay(def.backoff, job.attempt), MAX_RETRY_DELAY_MS),
      );
      this.delayed.set(id, timer);
    }
  }
}
