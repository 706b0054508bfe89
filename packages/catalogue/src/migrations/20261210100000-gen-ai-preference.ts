import { type Kysely, sql } from 'kysely';

/**
 * Each user's generative-AI preference and speech opt-out (schema/gen-ai-preference.ts), and the
 * one function that makes of them a sound's preference. The values are this migration's own copy:
 * a later change of the list needs a migration of its own.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE users
    ADD COLUMN gen_ai_preference text NOT NULL DEFAULT 'no-additional-preferences'
      CHECK (gen_ai_preference IN ('no-additional-preferences', 'open-source-models',
        'noncommercial-open-source-models', 'no-gen-ai')),
    ADD COLUMN gen_ai_speech_opt_out boolean NOT NULL DEFAULT false`.execute(db);
  await sql`CREATE FUNCTION sound_gen_ai_preference(preference text, speech_opt_out boolean, category_code text)
    RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT CASE WHEN speech_opt_out AND category_code = 'sp-s' THEN 'no-gen-ai' ELSE preference END
    $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP FUNCTION IF EXISTS sound_gen_ai_preference(text, boolean, text)`.execute(db);
  await sql`ALTER TABLE users DROP COLUMN IF EXISTS gen_ai_preference,
    DROP COLUMN IF EXISTS gen_ai_speech_opt_out`.execute(db);
}
