import type { Database } from '@earshot/catalogue';
import type { Kysely } from 'kysely';

export interface ModerationEntry {
  id: number;
  name: string;
  username: string;
  processingState: string;
  created: Date;
}

/** Sounds waiting for a moderator, oldest first. */
export async function listPendingModeration(db: Kysely<Database>, limit = 100): Promise<ModerationEntry[]> {
  const rows = await db
    .selectFrom('sounds')
    .innerJoin('users', 'users.id', 'sounds.user_id')
    .select(['sounds.id', 'sounds.name', 'users.username', 'sounds.processing_state', 'sounds.created'])
    .where('sounds.moderation_state', '=', 'pending_moderation')
    .orderBy('sounds.created')
    .orderBy('sounds.id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    username: r.username,
    processingState: r.processing_state,
    created: r.created,
  }));
}

/**
 * Approves or rejects sounds pending moderation; returns the ids that changed. An approved sound is
 * visible once its processing is done too.
 */
export async function moderate(
  db: Kysely<Database>,
  ids: number[],
  decision: 'approve' | 'reject',
  moderatorId: number | null = null,
): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .updateTable('sounds')
    .set({
      moderation_state: decision === 'approve' ? 'ok' : 'rejected',
      moderated_at: new Date(),
      moderated_by: moderatorId,
    })
    .where('id', 'in', ids)
    .where('moderation_state', '=', 'pending_moderation')
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}
