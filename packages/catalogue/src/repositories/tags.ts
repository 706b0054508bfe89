import type { Transaction } from 'kysely';
import type { Database } from '../schema/database.ts';

/**
 * Freesound's rule: lower case, the words of a multi-word tag joined with `-` (`Field Recording` →
 * `field-recording`), empty ones dropped, no repeats, first occurrence's order kept. The one tag
 * normalizer: every writer of tags goes through it (via replaceSoundTags). What a tag may contain
 * is checked by the API.
 */
export function normalizeTags(tags: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const tag of tags) {
    const t = tag.trim().toLowerCase().replace(/\s+/g, '-');
    if (t) seen.add(t);
  }
  return [...seen];
}

/**
 * Replaces a sound's tags: the `sounds.tags` array (what search filters and shows) and the
 * normalized `tags`/`sound_tags` rows (one row per distinct tag, for tag listings and counts).
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
