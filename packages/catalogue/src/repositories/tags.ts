import type { Transaction } from 'kysely';
import type { Database } from '../schema/database.ts';

/** Lower-cased, trimmed, empty ones dropped, first occurrence kept. Validation of what a tag may contain is the API's. */
export function normalizeTags(tags: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const tag of tags) {
    const t = tag.trim().toLowerCase();
    if (t) seen.add(t);
  }
  return [...seen];
}

/**
 * Replaces a sound's tags: the `sounds.tags` array (what search filters and shows) and the
 * normalised `tags`/`sound_tags` rows (one row per distinct tag, for tag listings and counts).
 */
export async function replaceSoundTags(
  trx: Transaction<Database>,
  soundId: number,
  tags: readonly string[],
): Promise<string[]> {
  const normalized = normalizeTags(tags);
  await trx.updateTable('sounds').set({ tags: normalized }).where('id', '=', soundId).execute();
  await trx.deleteFrom('sound_tags').where('sound_id', '=', soundId).execute();
  if (normalized.length === 0) return normalized;
  await trx
    .insertInto('tags')
    .values(normalized.map((name) => ({ name })))
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const rows = await trx.selectFrom('tags').select('id').where('name', 'in', normalized).execute();
  await trx
    .insertInto('sound_tags')
    .values(rows.map((r) => ({ sound_id: soundId, tag_id: r.id })))
    .execute();
  return normalized;
}
