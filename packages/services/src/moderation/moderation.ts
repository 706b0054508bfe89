import {
  type Db,
  listModerationQueue,
  type ModerationDecision,
  moderateSounds,
  type ProcessingState,
} from '@earshot/catalogue';
import { ValidationError } from '@earshot/common';

export interface ModerationEntry {
  id: number;
  name: string;
  username: string;
  description: string;
  tags: string[];
  /** Seconds; 0 until processing has probed the file. */
  duration: number;
  processingState: ProcessingState;
  created: Date;
  /** Which of the files a moderator reviews exist yet (processing makes them). */
  files: { preview: boolean; waveform: boolean; spectrogram: boolean };
}

/** Sounds waiting for a moderator (processed or not yet), oldest first. */
export async function listPendingModeration(db: Db, limit = 100): Promise<ModerationEntry[]> {
  const page = await listModerationQueue(db, { limit, offset: 0 }, { includeUnprocessed: true });
  return page.items.map((s) => {
    const media = s.media_paths ?? {};
    return {
      id: s.id,
      name: s.name,
      username: s.username,
      description: s.description,
      tags: s.tags ?? [],
      duration: s.duration ?? 0,
      processingState: s.processing_state,
      created: s.created,
      files: {
        preview: Boolean(media['preview-lq-mp3']),
        waveform: Boolean(media.waveform_m),
        spectrogram: Boolean(media.spectral_m),
      },
    };
  });
}

/** The longest rejection reason kept (the column's limit). */
export const MODERATION_REASON_MAX = 2000;

export interface ModerationOptions {
  /** Who decided (null: an administrator's command). */
  moderatorId?: number | null;
  /** Why a sound is rejected, told to its uploader; ignored for an approval. */
  reason?: string;
}

/**
 * Approves or rejects sounds pending moderation through the sound state machine; returns the ids
 * that changed (the others were not waiting for a moderator). An approved sound is visible once
 * its processing is done too.
 */
export function moderate(
  db: Db,
  ids: readonly number[],
  decision: ModerationDecision,
  options: ModerationOptions = {},
): Promise<number[]> {
  const reason = options.reason?.trim() || null;
  if (reason && reason.length > MODERATION_REASON_MAX) {
    throw new ValidationError(`Use at most ${MODERATION_REASON_MAX} characters for the reason.`);
  }
  return moderateSounds(
    db,
    ids,
    decision,
    options.moderatorId ?? null,
    decision === 'reject' ? reason : null,
  );
}
