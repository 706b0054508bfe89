import { EarshotError } from '@earshot/common';
import type { ModerationState, ProcessingState } from '../../schema/database.ts';

/**
 * The named moves of a sound's two states: its processing (`Queued` → `Processing` → `Processed` or
 * `Failed`) and its moderation (`pending_moderation` → `ok` or `rejected`). Every writer of those
 * columns goes through these names (`sound-lifecycle.ts` applies them with guarded UPDATEs), so a
 * move the table does not allow is refused instead of written.
 */
export type SoundTransition =
  /** A new sound enters the pipeline: it is created `Queued` (there is no earlier state). */
  | 'queue'
  /** An attempt of a stage begins (retries enter `Processing` again). */
  | 'start'
  /** A running stage reports how far it is (bookkeeping only; the state does not change). */
  | 'progress'
  /** A stage is done and the next one is due. */
  | 'advance'
  /** Processing failed for good. */
  | 'fail'
  /** The last stage is done. */
  | 'finish'
  | 'approve'
  | 'reject'
  /** Process the sound again from the first stage, without a new upload. */
  | 'reprocess';

export interface SoundStatus {
  processing: ProcessingState;
  moderation: ModerationState;
}

export interface TransitionRule {
  /**
   * The states the move may leave from: `new` for a sound being created; otherwise the processing
   * and moderation states allowed (`any` = that side is not looked at).
   */
  from:
    | 'new'
    | { processing: readonly ProcessingState[] | 'any'; moderation: readonly ModerationState[] | 'any' };
  /** Where it goes; a side left out does not change. */
  to: Partial<SoundStatus>;
}

const UNFINISHED: readonly ProcessingState[] = ['Queued', 'Processing'];

/** The table: which states each transition leaves from and where it goes. */
export const SOUND_TRANSITIONS: Readonly<Record<SoundTransition, TransitionRule>> = {
  queue: { from: 'new', to: { processing: 'Queued' } },
  start: { from: { processing: UNFINISHED, moderation: 'any' }, to: { processing: 'Processing' } },
  progress: { from: { processing: ['Processing'], moderation: 'any' }, to: { processing: 'Processing' } },
  advance: { from: { processing: ['Processing'], moderation: 'any' }, to: { processing: 'Processing' } },
  fail: { from: { processing: UNFINISHED, moderation: 'any' }, to: { processing: 'Failed' } },
  finish: { from: { processing: ['Processing'], moderation: 'any' }, to: { processing: 'Processed' } },
  approve: { from: { processing: 'any', moderation: ['pending_moderation'] }, to: { moderation: 'ok' } },
  reject: { from: { processing: 'any', moderation: ['pending_moderation'] }, to: { moderation: 'rejected' } },
  reprocess: {
    from: { processing: ['Queued', 'Processing', 'Failed', 'Processed'], moderation: 'any' },
    to: { processing: 'Queued' },
  },
};

/** True when `transition` may leave from `status` (`undefined`: the sound does not exist yet). */
export function allows(transition: SoundTransition, status: SoundStatus | undefined): boolean {
  const { from } = SOUND_TRANSITIONS[transition];
  if (from === 'new' || status === undefined) return from === 'new' && status === undefined;
  return (
    (from.processing === 'any' || from.processing.includes(status.processing)) &&
    (from.moderation === 'any' || from.moderation.includes(status.moderation))
  );
}

/** Where `transition` takes a sound in `status`; throws IllegalTransitionError when the table refuses it. */
export function nextStatus(
  transition: SoundTransition,
  status: SoundStatus | undefined,
  soundId?: number,
): Partial<SoundStatus> {
  if (!allows(transition, status)) throw new IllegalTransitionError(transition, status, soundId);
  return { ...status, ...SOUND_TRANSITIONS[transition].to };
}

/** A transition the sound's current state does not allow (or a sound that is not there). */
export class IllegalTransitionError extends EarshotError {
  constructor(
    readonly transition: SoundTransition,
    /** The sound's state when it was refused; undefined when there is no such sound. */
    readonly current: SoundStatus | undefined,
    readonly soundId?: number,
  ) {
    const which = soundId === undefined ? 'the sound' : `sound ${soundId}`;
    super(
      current
        ? `Cannot ${transition} ${which}: it is ${current.processing} and ${current.moderation}.`
        : `Cannot ${transition} ${which}: there is no such sound.`,
      current ? 'illegal_transition' : 'not_found',
      current ? 409 : 404,
    );
  }
}
