import type { Db } from '../repositories/shared.ts';
import type { ModerationState, ProcessingState } from '../schema/database.ts';

/**
 * Test set-up only: puts a sound straight into a state, past the lifecycle's guards
 * (`repositories/lifecycle/`), so a suite about something else can start from "processed and
 * approved" without running the pipeline. Production code moves a sound through the transitions.
 */
export interface ForcedProcessingState {
  state: ProcessingState;
  stage?: string | null;
  /** 0–1. */
  progress?: number;
  error?: string | null;
  /** Count a new attempt. */
  newAttempt?: boolean;
}

export async function setProcessingState(db: Db, id: number, update: ForcedProcessingState): Promise<void> {
  await db
    .updateTable('sounds')
    .set((eb) => ({
      processing_state: update.state,
      processing_updated: new Date(),
      ...(update.stage !== undefined && { processing_stage: update.stage }),
      ...(update.progress !== undefined && { processing_progress: update.progress }),
      ...(update.error !== undefined && { processing_error: update.error }),
      ...(update.newAttempt && { processing_attempts: eb('processing_attempts', '+', 1) }),
    }))
    .where('id', '=', id)
    .execute();
}

export async function setModerationState(
  db: Db,
  id: number,
  state: ModerationState,
  moderatorId: number | null,
): Promise<void> {
  await db
    .updateTable('sounds')
    .set({ moderation_state: state, moderated_at: new Date(), moderated_by: moderatorId })
    .where('id', '=', id)
    .execute();
}
