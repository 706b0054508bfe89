import { type Kysely, sql } from 'kysely';

/**
 * Why a moderator rejected a sound, kept with it so the uploader can be told and a later moderator
 * sees the decision's grounds. Null for sounds never rejected (an approval clears it).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE sounds ADD COLUMN moderation_reason text
    CHECK (moderation_reason IS NULL OR length(moderation_reason) <= 2000)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE sounds DROP COLUMN IF EXISTS moderation_reason`.execute(db);
}
