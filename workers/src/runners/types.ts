import type { EnqueueOptions, JobGuard, JobHooks } from '../jobs/execute.ts';
import type { JobRegistry } from '../jobs/registry.ts';

export interface QueueCounts {
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  completed: number;
}

/** A job that failed for good, as the queue remembers it. */
export interface FinalFailure {
  message: string;
  /** Refused for good (a bad file), not attempts used up. */
  permanent: boolean;
  attempts: number;
  /** When it failed (ms since the epoch). */
  at: number;
}

export interface JobRunnerOptions {
  registry: JobRegistry;
  hooks?: JobHooks;
  /** Wraps each attempt (the pipeline's: the sound's lease in the catalogue). */
  guard?: JobGuard;
}

/**
 * Queues jobs and (when it has workers) runs them. The in-process runner and the BullMQ runner both
 * implement it; handlers and hooks see no difference.
 */
export interface JobRunner {
  readonly kind: 'in-process' | 'bullmq';
  /** Queues a job unless one with the same id is already waiting, delayed or running. */
  enqueue(name: string, soundId: number, options?: EnqueueOptions): Promise<void>;
  /** True when the job with this id is waiting, delayed or running somewhere. */
  isPending(name: string, soundId: number): Promise<boolean>;
  /**
   * The job's final failure, when the queue holds the job as failed. The pipeline records it in
   * the catalogue when the failure hook could not (the catalogue was down at that moment).
   */
  finalFailure(name: string, soundId: number): Promise<FinalFailure | undefined>;
  /** Forgets a finished or failed job so that its id can be queued again (reprocessing). */
  forget(name: string, soundId: number): Promise<void>;
  counts(): Promise<QueueCounts>;
  /** Run times (ms) of recently completed jobs, by job name, newest last. */
  recentDurations(limit?: number): Promise<Record<string, number[]>>;
  /** Failure messages of recently failed jobs, newest first. */
  recentFailures(limit?: number): Promise<Array<{ name: string; soundId: number; reason: string }>>;
  /** Starts running jobs here, `concurrency` at a time. */
  startWorkers(concurrency: number): Promise<void>;
  /**
   * Stops. Running jobs get `graceMs` to finish; after that they are abandoned: the BullMQ runner
   * leaves them for another worker, the in-process runner leaves their sounds to be resumed from
   * the catalogue.
   */
  close(graceMs?: number): Promise<void>;
}
