import { type ExpressionBuilder, sql, type UpdateObject } from 'kysely';
import type { Database, ModerationState, ProcessingState } from '../../schema/database.ts';
import { type Db, inRetriedTransaction, inTransaction } from '../shared.ts';
import {
  IllegalTransitionError,
  nextStatus,
  SOUND_TRANSITIONS,
  type SoundTransition,
} from './transitions.ts';

/**
 * The repository side of the sound state machine (`transitions.ts`): each function applies one
 * transition with an UPDATE guarded by the states the table allows it to leave from, so a sound
 * that has moved on (or does not exist) makes it throw IllegalTransitionError instead of being
 * overwritten. Stage names are the pipeline's; the catalogue stores them as text.
 */

/**
 * What a sound's record holds when a stage is due, or how far the running stage is. `Stage` is the
 * pipeline's stage name type (the catalogue stores any text).
 */
export interface StageAdvance<Stage extends string = string> {
  stage: Stage;
  /** Overall progress of the sound, 0–1. */
  progress: number;
}

/** The processing columns of a sound that has entered the pipeline and waits for its first stage. */
export const QUEUED_RECORD: {
  processing_state: ProcessingState;
  processing_stage: null;
  processing_progress: number;
  processing_attempts: number;
  processing_error: null;
} = {
  processing_state: 'Queued',
  processing_stage: null,
  processing_progress: 0,
  processing_attempts: 0,
  processing_error: null,
};

/** The where-clause of `transition`: the states the table lets it leave from. */
export function allowedBy(transition: SoundTransition) {
  const { from } = SOUND_TRANSITIONS[transition];
  if (from === 'new') throw new Error(`${transition} creates a sound; it updates none`);
  return (eb: ExpressionBuilder<Database, 'sounds'>) => {
    const conditions = [];
    if (from.processing !== 'any') conditions.push(eb('sounds.processing_state', 'in', from.processing));
    if (from.moderation !== 'any') conditions.push(eb('sounds.moderation_state', 'in', from.moderation));
    return eb.and(conditions);
  };
}

type SoundSet = UpdateObject<Database, 'sounds', 'sounds'>;

/** One guarded UPDATE of a sound; throws why when no row moved. */
export async function updateThrough(
  db: Db,
  soundId: number,
  transition: SoundTransition,
  set: SoundSet,
): Promise<void> {
  const result = await db
    .updateTable('sounds')
    .set(set)
    .where('id', '=', soundId)
    .where(allowedBy(transition))
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) throw await refusal(db, soundId, transition);
}

async function refusal(
  db: Db,
  soundId: number,
  transition: SoundTransition,
): Promise<IllegalTransitionError> {
  const row = await db
    .selectFrom('sounds')
    .select(['processing_state', 'moderation_state'])
    .where('id', '=', soundId)
    .executeTakeFirst();
  const status = row && { processing: row.processing_state, moderation: row.moderation_state };
  return new IllegalTransitionError(transition, status, soundId);
}

const clamp01 = (x: number) => Math.max(0, Math.min(1, x));

/** The columns that record `advance` as the sound's current stage, not yet tried. */
export function advanceColumns(advance: StageAdvance) {
  return {
    processing_state: SOUND_TRANSITIONS.advance.to.processing,
    processing_stage: advance.stage,
    processing_progress: clamp01(advance.progress),
    processing_attempts: 1,
    processing_error: null,
    processing_updated: new Date(),
  } satisfies SoundSet;
}

/** `start`: an attempt of `stage` begins (a retry enters Processing again). */
export function startStage(
  db: Db,
  soundId: number,
  attempt: StageAdvance & { attempts: number },
): Promise<void> {
  return updateThrough(db, soundId, 'start', {
    processing_state: 'Processing',
    processing_stage: attempt.stage,
    processing_progress: clamp01(attempt.progress),
    processing_attempts: attempt.attempts,
    processing_error: null,
    processing_updated: new Date(),
  });
}

/** `progress`: how far the running stage is (only stage, progress and time change: no search refresh). */
export function reportProgress(db: Db, soundId: number, progress: StageAdvance): Promise<void> {
  return updateThrough(db, soundId, 'progress', {
    processing_stage: progress.stage,
    processing_progress: clamp01(progress.progress),
    processing_updated: new Date(),
  });
}

/** `advance`: the current stage is done and `next` is due. */
export function advanceStage(db: Db, soundId: number, next: StageAdvance): Promise<void> {
  return updateThrough(db, soundId, 'advance', advanceColumns(next));
}

export interface ProcessingFailure<Stage extends string = string> {
  stage: Stage;
  /** The sentence an uploader reads. */
  reason: string;
  /** The tool's own words, for operators. */
  detail?: string;
  attempts: number;
}

/** `fail`: processing ended in failure. The stored text is the reason, a blank line, then the detail. */
export function failProcessing(db: Db, soundId: number, failure: ProcessingFailure): Promise<void> {
  const text =
    failure.detail && failure.detail !== failure.reason
      ? `${failure.reason}\n\n${failure.detail}`
      : failure.reason;
  return updateThrough(db, soundId, 'fail', {
    processing_state: 'Failed',
    processing_stage: failure.stage,
    processing_attempts: failure.attempts,
    processing_error: text,
    processing_updated: new Date(),
  });
}

/**
 * `finish`, and `approve` in the same write when the uploader is trusted and the sound waits for
 * a moderator. Returns where the sound went.
 */
export function finishProcessing(
  db: Db,
  soundId: number,
  lastStage: string,
): Promise<'pending_moderation' | 'approved'> {
  return inTransaction(db, async (trx) => {
    const row = await trx
      .selectFrom('sounds')
      .innerJoin('users', 'users.id', 'sounds.user_id')
      .select(['sounds.processing_state', 'sounds.moderation_state', 'users.is_trusted'])
      .where('sounds.id', '=', soundId)
      .forUpdate('sounds')
      .executeTakeFirst();
    const status = row && { processing: row.processing_state, moderation: row.moderation_state };
    nextStatus('finish', status, soundId);
    const approve = row!.is_trusted && row!.moderation_state === 'pending_moderation';
    await updateThrough(trx, soundId, 'finish', {
      processing_state: 'Processed',
      processing_stage: lastStage,
      processing_progress: 1,
      processing_error: null,
      processing_updated: new Date(),
      ...(approve ? { moderation_state: 'ok' as const, moderated_at: new Date() } : {}),
    });
    return approve || row!.moderation_state === 'ok' ? 'approved' : 'pending_moderation';
  });
}

/** `reprocess`: back to Queued, waiting for the first stage again. */
export function reprocessSound(db: Db, soundId: number): Promise<void> {
  return updateThrough(db, soundId, 'reprocess', { ...QUEUED_RECORD, processing_updated: new Date() });
}

export type ModerationDecision = 'approve' | 'reject';

const DECIDED: Record<ModerationDecision, ModerationState> = { approve: 'ok', reject: 'rejected' };

/**
 * `approve` or `reject` each sound the table allows it for; returns the ids that changed (the
 * others are left as they are, and the caller reports them). An approval adds the sounds' search
 * documents, whose triggers lock word counts an edit of another sound may hold: a deadlock's
 * victim runs again.
 */
export async function moderateSounds(
  db: Db,
  soundIds: readonly number[],
  decision: ModerationDecision,
  moderatorId: number | null = null,
  reason: string | null = null,
): Promise<number[]> {
  if (soundIds.length === 0) return [];
  const rows = await inRetriedTransaction(db, (trx) =>
    trx
      .updateTable('sounds')
      .set(decided(decision, moderatorId, reason))
      .where('id', 'in', soundIds)
      .where(allowedBy(decision))
      .returning('id')
      .execute(),
  );
  return rows.map((r) => r.id);
}

/** `approve` or `reject` one sound; throws IllegalTransitionError when it is not waiting for a moderator. */
export function moderateSound(
  db: Db,
  soundId: number,
  decision: ModerationDecision,
  moderatorId: number | null = null,
  reason: string | null = null,
): Promise<void> {
  return updateThrough(db, soundId, decision, decided(decision, moderatorId, reason));
}

/** The columns a decision writes: a rejection keeps its reason, an approval has none. */
function decided(decision: ModerationDecision, moderatorId: number | null, reason: string | null) {
  return {
    moderation_state: DECIDED[decision],
    moderated_at: new Date(),
    moderated_by: moderatorId,
    moderation_reason: decision === 'reject' ? reason : null,
  };
}

/** A sound's processing record, as the pipeline and its reconciler read it. */
export interface ProcessingRecord {
  id: number;
  state: ProcessingState;
  /** The pipeline's stage name; null while a sound waits for its first stage. */
  stage: string | null;
  /** Overall progress, 0–1. */
  progress: number;
  attempts: number;
  /** The failure's text: the reason, then the detail after a blank line. */
  error: string | null;
  /** When the record last changed. */
  updated: Date;
}

export async function getProcessingRecord(db: Db, soundId: number): Promise<ProcessingRecord | undefined> {
  const row = await db
    .selectFrom('sounds')
    .select([
      'id',
      'processing_state',
      'processing_stage',
      'processing_progress',
      'processing_attempts',
      'processing_error',
      'processing_updated',
    ])
    .where('id', '=', soundId)
    .executeTakeFirst();
  return (
    row && {
      id: row.id,
      state: row.processing_state,
      stage: row.processing_stage,
      progress: row.processing_progress,
      attempts: row.processing_attempts,
      error: row.processing_error,
      updated: row.processing_updated,
    }
  );
}

/**
 * Sounds whose processing has not ended (described ones only) and that no process holds a live
 * lease on, least recently touched first. The partial index on processing_state keeps it cheap
 * enough to run every few seconds.
 */
export function listUnfinishedSounds(
  db: Db,
  limit: number,
): Promise<Array<{ id: number; stage: string | null }>> {
  return (
    db
      .selectFrom('sounds')
      .select(['id', 'processing_stage as stage'])
      .where('processing_state', 'in', ['Queued', 'Processing'])
      .where('moderation_state', '<>', 'pending_description')
      // A sound another process holds a live lease on is being worked on there (sound-leases.ts).
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('sound_leases')
              .select('sound_leases.sound_id')
              .whereRef('sound_leases.sound_id', '=', 'sounds.id')
              .where('sound_leases.expires_at', '>', sql<Date>`now()`),
          ),
        ),
      )
      .orderBy('processing_updated')
      .limit(limit)
      .execute()
  );
}

export async function listFailedSoundIds(db: Db): Promise<number[]> {
  const rows = await db
    .selectFrom('sounds')
    .select('id')
    .where('processing_state', '=', 'Failed')
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

/** Of `soundIds`, those whose processing has ended, with the first line of a failure's text. */
export async function listSettledSounds(
  db: Db,
  soundIds: readonly number[],
): Promise<Array<{ id: number; state: 'Processed' | 'Failed'; reason?: string }>> {
  if (soundIds.length === 0) return [];
  const rows = await db
    .selectFrom('sounds')
    .select(['id', 'processing_state', 'processing_error'])
    .where('id', 'in', soundIds)
    .where('processing_state', 'in', ['Processed', 'Failed'])
    .execute();
  return rows.map((r) => ({
    id: r.id,
    state: r.processing_state as 'Processed' | 'Failed',
    reason: r.processing_error?.split('\n')[0],
  }));
}
