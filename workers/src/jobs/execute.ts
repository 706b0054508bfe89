import type { Logger } from '@earshot/common';
import { type CpuSample, cpuNow, cpuSince } from './cpu.ts';
import { errorMessage, isPermanentFailure, JobTimeoutError } from './errors.ts';
import { type JobContext, type JobDefinition, jobIdFor } from './registry.ts';

export interface EnqueueOptions {
  /**
   * Ahead of the waiting jobs: the next stage of a sound already under way goes first, so sounds
   * finish one after another instead of all at the end.
   */
  front?: boolean;
}

/** Adds a job; resolves once it is queued. Both runners offer it to the lifecycle hooks. */
export type Enqueue = (name: string, soundId: number, options?: EnqueueOptions) => Promise<void>;

export interface JobRef {
  name: string;
  soundId: number;
  attempt: number;
  maxAttempts: number;
}

/**
 * What the pipeline wants to hear about a job's life. The runners call these at the same moments,
 * so the catalogue's record of a sound does not depend on which runner is in use.
 */
export interface JobHooks {
  started?(job: JobRef): Promise<void>;
  progress?(job: JobRef, percent: number): Promise<void>;
  completed?(job: JobRef, tools: { enqueue: Enqueue; durationMs: number }): Promise<void>;
  /** `final` = no attempt follows (permanent failure or attempts used up). */
  failed?(job: JobRef, failure: { error: unknown; final: boolean; durationMs: number }): Promise<void>;
}

/**
 * Runs a job's attempt (`run`) on the guard's terms: a guard may refuse to run it (JobDroppedError)
 * or stop it midway with `abort`. The pipeline's guard is the sound's lease (pipeline/lease.ts).
 */
export type JobGuard = (
  job: JobRef,
  run: () => Promise<JobResult>,
  abort: (reason: Error) => void,
) => Promise<JobResult>;

/**
 * The attempt was not this process's to run (another process owns the sound): neither a success
 * nor a failure. The runners drop the job without retrying; the owner, or a reconciler once the
 * owner's lease expires, carries the sound on.
 */
export class JobDroppedError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'JobDroppedError';
  }
}

export interface JobResult {
  /** The whole attempt: hooks included. */
  durationMs: number;
  /** The handler alone (what the queue's overhead is measured against). */
  handlerMs: number;
  /** The lifecycle hooks around the handler (catalogue record, queueing the next stage). */
  hooksMs: number;
  /** CPU during the handler: this process's and its finished child processes' (exact with one job at a time). */
  handlerCpu: CpuSample;
}

/** Thrown by executeJob; `permanent` tells the runner not to retry. */
export class JobFailedError extends Error {
  constructor(
    readonly error: unknown,
    readonly permanent: boolean,
    readonly final: boolean,
    /** False when the failure hook could not record the failure (say, the catalogue was down). */
    readonly recorded = true,
  ) {
    super(errorMessage(error));
    this.name = 'JobFailedError';
  }
}

const SETTLE_AFTER_ABORT_MS = 5_000;

/**
 * Runs one attempt of a job: the handler under its timeout, then the hooks. Both runners call this
 * and only decide when an attempt runs; retries and backoff follow the definition.
 */
export async function executeJob(
  def: JobDefinition,
  job: JobRef,
  deps: { hooks: JobHooks; enqueue: Enqueue; logger: Logger; signal?: AbortSignal; guard?: JobGuard },
): Promise<JobResult> {
  const controller = new AbortController();
  const onOuterAbort = () => controller.abort(deps.signal?.reason);
  deps.signal?.addEventListener('abort', onOuterAbort, { once: true });
  const logger = deps.logger.child({ job: def.name, soundId: job.soundId, attempt: job.attempt });
  const ctx: JobContext = {
    name: def.name,
    soundId: job.soundId,
    jobId: jobIdFor(job.soundId, def.name),
    attempt: job.attempt,
    maxAttempts: job.maxAttempts,
    signal: controller.signal,
    logger,
    progress: async (percent) => {
      await deps.hooks.progress?.(job, Math.max(0, Math.min(100, percent)));
    },
  };
  const attempt = () => runAttempt(def, job, ctx, controller, deps, logger);
  try {
    return await (deps.guard ? deps.guard(job, attempt, (reason) => controller.abort(reason)) : attempt());
  } finally {
    deps.signal?.removeEventListener('abort', onOuterAbort);
  }
}

async function runAttempt(
  def: JobDefinition,
  job: JobRef,
  ctx: JobContext,
  controller: AbortController,
  deps: { hooks: JobHooks; enqueue: Enqueue },
  logger: Logger,
): Promise<JobResult> {
  const startedAt = performance.now();
  try {
    await deps.hooks.started?.(job);
    const handlerStart = performance.now();
    const cpuStart = cpuNow();
    await runWithTimeout(def, ctx, controller);
    const handlerMs = performance.now() - handlerStart;
    const handlerCpu = cpuSince(cpuStart);
    // Inside the try: if recording success or queueing the next stage fails, the attempt failed.
    const durationMs = performance.now() - startedAt;
    await deps.hooks.completed?.(job, { enqueue: deps.enqueue, durationMs });
    logger.debug({ durationMs }, 'job completed');
    const hooksMs = performance.now() - startedAt - handlerMs;
    return { durationMs, handlerMs, hooksMs, handlerCpu };
  } catch (error) {
    const durationMs = performance.now() - startedAt;
    const permanent = isPermanentFailure(error);
    const final = permanent || job.attempt >= job.maxAttempts;
    // A refused upload is an outcome, not an operator's problem: info, not warn.
    logger[permanent ? 'info' : 'warn']({ err: error, final, durationMs }, 'job attempt failed');
    let recorded = true;
    try {
      await deps.hooks.failed?.(job, { error, final, durationMs });
    } catch (hookError) {
      recorded = false;
      logger.error({ err: hookError }, 'could not record a job failure');
    }
    throw new JobFailedError(error, permanent, final, recorded);
  }
}

async function runWithTimeout(def: JobDefinition, ctx: JobContext, controller: AbortController) {
  let timer: NodeJS.Timeout | undefined;
  const running = def.handler(ctx);
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new JobTimeoutError(def.name, def.timeoutMs)), def.timeoutMs);
  });
  try {
    await Promise.race([running, timedOut]);
  } catch (err) {
    if (err instanceof JobTimeoutError) {
      controller.abort(err);
      // Give the handler a moment to stop its tools, so a retry does not race a stale writer.
      await Promise.race([running.catch(() => {}), sleep(SETTLE_AFTER_ABORT_MS)]);
    }
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
