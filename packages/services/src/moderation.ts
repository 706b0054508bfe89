import {
  type Db,
  listModerationQueue,
  type ModerationDecision,
  moderateSounds,
  type ProcessingState,
} from '@earshot/catalogue';

export interface ModerationEntry {
  id: number;
  name: string;
  username: string;
  processingState: ProcessingState;
  created: Date;
}

/** Sounds waiting for a moderator (processed or not yet), oldest first. */
export async function listPendingModeration(db: Db, limit = 100): Promise<ModerationEntry[]> {
  const page = await listModerationQueue(db, { limit, offset: 0 }, { includeUnprocessed: true });
  return page.items.map((s) => ({
    id: s.id,
    name: s.name,
    username: s.username,
    processingState: s.processing_state,
    created: s.created,
  }));
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
  moderatorId: number | null = null,
): Promise<number[]> {
  return moderateSounds(db, ids, decision, moderatorId);
}
