import type { Logger } from '@earshot/common';
import { EarshotError } from '@earshot/common';
import type { JobRunner } from '../runners/types.ts';
import { FIRST_STAGE, STAGES } from './stages.ts';
import type { PipelineStore } from './store.ts';

export class AlreadyProcessingError extends EarshotError {
  constructor(soundId: number) {
    super(`Sound ${soundId} is being processed right now.`, 'already_processing', 409);
  }
}

/**
 * What the rest of earshot asks of the pipeline: process a new sound, process one again, and make
 * sure every unfinished sound has its job queued (after a crash or a Redis restart).
 */
export class Pipeline {
  private reconcileTimer: NodeJS.Timeout | undefined;
  private reconciling: Promise<number> | undefined;

  constructor(
    readonly store: PipelineStore,
    readonly runner: JobRunner,
    private readonly logger: Logger,
  ) {}

  /**
   * Starts processing a sound whose original is stored. The catalogue says "Queued" before the
   * queue hears of it, so a queue that is down loses nothing: the reconciler queues it later.
   */
  async submit(soundId: number): Promise<void> {
    await this.store.recordProgress(soundId, {
      state: 'Queued',
      stage: FIRST_STAGE,
      progress: 0,
      attempts: 0,
    });
    try {
      for (const { name } of STAGES) await this.runner.forget(name, soundId);
      await this.runner.enqueue(FIRST_STAGE, soundId);
    } catch (err) {
      this.logger.warn({ err, soundId }, 'could not queue the sound now; the reconciler will queue it');
    }
  }

  /** Processes a sound again from the start, without a new upload. */
  async reprocess(soundId: number): Promise<void> {
    const record = await this.store.processingRecord(soundId);
    if (!record) throw new EarshotError(`There is no sound ${soundId}.`, 'not_found', 404);
    if (record.state === 'Queued' || record.state === 'Processing') {
      if (await this.runner.isPending(record.stage, soundId)) throw new AlreadyProcessingError(soundId);
    }
    await this.submit(soundId);
  }

  async reprocessFailed(): Promise<number[]> {
    const ids = await this.store.failedSoundIds();
    for (const id of ids) await this.submit(id);
    return ids;
  }

  /**
   * Queues the current stage of every unfinished sound whose job the queue does not have. Returns
   * how many were queued. Fixed job ids make this safe to run anywhere, any time.
   */
  reconcile(batch = 1000): Promise<number> {
    this.reconciling ??= this.reconcileOnce(batch).finally(() => {
      this.reconciling = undefined;
    });
    return this.reconciling;
  }

  private async reconcileOnce(batch: number): Promise<number> {
    let queued = 0;
    for (const { id, stage } of await this.store.unfinished(batch)) {
      if (await this.runner.isPending(stage, id)) continue;
      // Re-read: the stage may have moved on while we looked at the queue.
      const now = await this.store.processingRecord(id);
      if (!now || now.stage !== stage || (now.state !== 'Queued' && now.state !== 'Processing')) continue;
      await this.runner.enqueue(stage, id);
      queued++;
    }
    if (queued) this.logger.info({ queued }, 'pipeline: queued unfinished sounds again');
    return queued;
  }

  /** Runs the reconciler now and every `intervalMs`, logging (not throwing) when it cannot. */
  startReconciler(intervalMs: number): void {
    const tick = () =>
      this.reconcile().catch((err) => this.logger.warn({ err }, 'pipeline: reconciling failed; will retry'));
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
