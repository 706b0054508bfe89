import { IllegalTransitionError, SoundLeaseLostError } from '@earshot/catalogue';
import { EarshotError } from '@earshot/common';
import {
  errorMessage,
  isPermanentFailure,
  JobTimeoutError,
  PermanentJobError,
  tail,
} from '../jobs/errors.ts';
import type { JobHooks } from '../jobs/execute.ts';
import { CATALOGUE_WIDE } from '../jobs/registry.ts';
import { CATEGORY_MODEL_JOB } from './definitions.ts';
import { ADVANCED_BY_HANDLER, FIRST_STAGE, isStage, nextStage, stageAt, stageLabel } from './stages.ts';
import type { PipelineStore } from './store.ts';

/**
 * Keeps each sound's processing record in the catalogue in step with its jobs, and chains the
 * stages: when one finishes, the record moves on and the next stage is queued. Each write is a
 * transition of the catalogue's sound state machine (start, progress, advance, fail).
 */
export function pipelineHooks(store: PipelineStore): JobHooks {
  return {
    async started(job) {
      if (!isStage(job.name)) return;
      // The previous stage already recorded this one as under way; only retries need a write.
      if (job.attempt === 1 && job.name !== FIRST_STAGE) return;
      try {
        await store.recordStart(job.soundId, { ...stageAt(job.name), attempts: job.attempt });
      } catch (err) {
        // A job left over from before the sound failed, finished or was deleted: retrying cannot help.
        if (err instanceof IllegalTransitionError)
          throw new PermanentJobError('The sound is no longer waiting to be processed.', undefined, {
            cause: err,
          });
        throw err;
      }
    },
    async progress(job, percent) {
      if (!isStage(job.name)) return;
      await store.recordProgress(job.soundId, stageAt(job.name, percent));
    },
    async completed(job, { enqueue }) {
      if (!isStage(job.name)) return;
      const next = nextStage(job.name);
      // A processed sound may be a new label: the job itself checks whether enough arrived to retrain.
      // The sound is done whatever happens to this add; a failed one is made good by the next
      // handover or the next start.
      if (!next) return enqueue(CATEGORY_MODEL_JOB, CATALOGUE_WIDE).catch(() => {});
      // Record first, then queue: if the queue is down, the record says what is due and the
      // reconciler queues it when the queue is back. Some handlers recorded it with their own save.
      if (!ADVANCED_BY_HANDLER.has(job.name)) {
        await store.recordAdvance(job.soundId, stageAt(next));
      }
      await enqueue(next, job.soundId, { front: true });
    },
    async failed(job, { error, final }) {
      // A lost lease is not the sound's failure: its new owner carries it on.
      if (!isStage(job.name) || !final || error instanceof SoundLeaseLostError) return;
      try {
        await store.recordFailure(job.soundId, {
          stage: job.name,
          reason: failureReason(job.name, error),
          detail: failureDetail(error),
          attempts: job.attempt,
        });
      } catch (err) {
        // The sound has already ended (or is gone): its record keeps that outcome, there is nothing to add.
        if (!(err instanceof IllegalTransitionError)) throw err;
      }
    },
  };
}

/** The sentence the uploader reads. Tool output stays in `detail`, for operators. */
export function failureReason(stage: string, error: unknown): string {
  if (isPermanentFailure(error) || error instanceof EarshotError) return errorMessage(error);
  if (error instanceof JobTimeoutError) return `Processing took too long while ${stageLabel(stage)}.`;
  return `Processing failed while ${stageLabel(stage)}; it can be retried.`;
}

/** The last lines of whatever the failing tool said (ffmpeg's stderr, a stack's first line). */
export function failureDetail(error: unknown): string | undefined {
  const e = error as {
    detail?: unknown;
    details?: { stderr?: unknown };
    stderrTail?: unknown;
    cause?: unknown;
  };
  if (typeof e?.detail === 'string') return tail(e.detail);
  if (typeof e?.details?.stderr === 'string') return tail(e.details.stderr);
  if (typeof e?.stderrTail === 'string') return tail(e.stderrTail);
  if (e?.cause) return failureDetail(e.cause);
  return tail(errorMessage(error));
}
