import type { Logger } from '@earshot/common';
import type { ProcessingQueue } from '@earshot/services';
import { PermanentJobError, tail } from '../jobs/errors.ts';
import { CATALOGUE_WIDE } from '../jobs/registry.ts';
import type { FinalFailure, JobRunner } from '../runners/types.ts';
import { failureReason } from './lifecycle.ts';
import { asStage, FIRST_STAGE, STAGES } from './stages.ts';
import type { PipelineStore } from './store.ts';

/** Machines' clocks differ a little: the queue's timestamps come from the worker's clock. */
const CLOCK_SLACK_MS = 5_000;

/** The error a final failure stood for, as far as the queue kept it (its message). */
function asError(failure: FinalFailure): Error {
  return failure.permanent ? new PermanentJobError(failure.message) : new Error(failure.message);
}

/**
 * What the rest of earshot asks of the pipeline (the services' ProcessingQueue): process a sound
 * the catalogue records as Queued, tell whether one is being processed, and make sure every
 * unfinished sound has its job queued (after a crash or a Redis restart).
 */
export class Pipeline implements ProcessingQueue {
  private reconcileTimer: NodeJS.Timeout | undefined;
  private reconciling: Promise<number> | undefined;

  private readonly upkeepQueuedAt = new Map<string, number>();

  constructor(
    readonly store: PipelineStore,
    readonly runner: JobRunner,
    private readonly logger: Logger,
    /**
     * Catalogue-wide jobs the reconciler queues, each at most every `everyMs` (the job itself decides
     * whether there is work): what an add dropped as a duplicate of a running run would otherwise miss.
     */
    private readonly upkeep: ReadonlyArray<{ name: string; everyMs: number }> = [],
  ) {}

  /**
   * Starts processing a sound whose original is stored and whose record the catalogue already
   * says is Queued (the intake creates it so, a reprocess puts it back): the catalogue is written
   * before the queue hears of it, so a queue that is down loses nothing — the reconciler queues it later.
   */
  async submit(soundId: number): Promise<void> {
    try {
      for (const { name } of STAGES) await this.runner.forget(name, soundId);
      await this.runner.enqueue(FIRST_STAGE, soundId);
    } catch (err) {
      this.logger.warn({ err, soundId }, 'could not queue the sound now; the reconciler will queue it');
    }
  }

  /** True while the job of the sound's current stage waits or runs. */
  async isBusy(soundId: number): Promise<boolean> {
    const record = await this.store.processingRecord(soundId);
    return !!record && this.runner.isPending(asStage(record.stage), soundId);
  }

  /**
   * Queues the current stage of every unfinished sound whose job the queue does not have, and
   * records as Failed those whose job failed for good without the catalogue hearing of it. Returns
   * how many sounds it moved. Fixed job ids make this safe to run anywhere, any time.
   */
  reconcile(batch = 1000): Promise<number> {
    this.reconciling ??= this.reconcileOnce(batch).finally(() => {
      this.reconciling = undefined;
    });
    return this.reconciling;
  }

  private async reconcileOnce(batch: number): Promise<number> {
    let queued = 0;
    let failed = 0;
    for (const { id, stage } of await this.store.unfinished(batch)) {
      if (await this.runner.isPending(stage, id)) continue;
      const failure = await this.runner.finalFailure(stage, id);
      // Re-read: the stage may have moved on while we looked at the queue.
      const now = await this.store.processingRecord(id);
      if (!now || asStage(now.stage) !== stage || (now.state !== 'Queued' && now.state !== 'Processing'))
        continue;
      // A job that failed for good while the catalogue was down: its failure was never recorded.
      // (A failure older than the record belongs to an earlier run and is queued over.)
      if (failure && failure.at >= now.updated.getTime() - CLOCK_SLACK_MS) {
        await this.store.recordFailure(id, {
          stage,
          reason: failureReason(stage, asError(failure)),
          detail: failure.permanent ? undefined : tail(failure.message),
          attempts: failure.attempts,
        });
        failed++;
        continue;
      }
      // A job the queue holds as finished while the record still awaits its stage was dropped (its
      // sound was leased by a process that then died): forgotten, so that its id can be queued again.
      await this.runner.forget(stage, id);
      await this.runner.enqueue(stage, id);
      queued++;
    }
    if (queued) this.logger.info({ queued }, 'pipeline: queued unfinished sounds again');
    if (failed) this.logger.info({ failed }, 'pipeline: recorded failures the catalogue missed');
    return queued + failed;
  }

  /** Queues each upkeep job whose interval has passed since this process last queued it. */
  private async queueUpkeep(): Promise<void> {
    const now = Date.now();
    for (const { name, everyMs } of this.upkeep) {
      if (now - (this.upkeepQueuedAt.get(name) ?? -Infinity) < everyMs) continue;
      await this.runner.enqueue(name, CATALOGUE_WIDE);
      this.upkeepQueuedAt.set(name, now);
    }
  }

  /** Runs the reconciler now and every `intervalMs`, logging (not throwing) when it cannot. */
  startReconciler(intervalMs: number): void {
    const tick = () =>
      Promise.all([this.reconcile(), this.queueUpkeep()]).catch((err) =>
        this.logger.warn({ err }, 'pipeline: reconciling failed; will retry'),
      );
    void tick();
    this.reconcileTimer = setInterval(tick, intervalMs);
    this.reconcileTimer.unref();
  }

  async close(graceMs?: number): Promise<void> {
    clearInterval(this.reconcileTimer);
    await this.reconciling?.catch(() => {});
    await this.runner.close(graceMs);
  }
}
