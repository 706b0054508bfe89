import { type Kysely, sql } from 'kysely';
import { BROAD_SOUND_TAXONOMY, categoryCode } from '../schema/taxonomy.ts';

/**
 * Sounds were created with `category_code` null and `category_is_user_provided` false whatever
 * their category. From here both are set when a sound is created or its category edited
 * (`categoryCode`); this fills them in for the sounds created before. Every category stored until
 * now came from the uploader: nothing estimates one yet.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Every (category, subcategory) the rule gives a code for, null standing for "no subcategory".
  const rows = BROAD_SOUND_TAXONOMY.flatMap((c) =>
    [null, ...c.subcategories.map((s) => s.name)].map(
      (sub) => sql`(${c.name}::text, ${sub}::text, ${categoryCode(c.name, sub)}::text)`,
    ),
  );
  // Neither column is part of the search document: no document needs rebuilding.
  await sql`ALTER TABLE sounds DISABLE TRIGGER sounds_search_sync_update`.execute(db);
  await sql`UPDATE sounds SET
      category_code = coalesce(
        (SELECT t.code FROM (VALUES ${sql.join(rows)}) AS t(category, subcategory, code)
          WHERE t.category = sounds.category AND t.subcategory IS NOT DISTINCT FROM sounds.subcategory),
        (SELECT t.code FROM (VALUES ${sql.join(rows)}) AS t(category, subcategory, code)
          WHERE t.category = sounds.category AND t.subcategory IS NULL)),
      category_is_user_provided = true
    WHERE category IS NOT NULL`.execute(db);
  await sql`ALTER TABLE sounds ENABLE TRIGGER sounds_search_sync_update`.execute(db);
}

export async function down(): Promise<void> {
  // Nothing to undo: the values filled in are what the sounds should have had.
}
