import { type Kysely, sql } from 'kysely';

/**
 * A webhook that keeps failing is switched off (issue 36): `failing_since` is when its current run
 * of failures began (null while it delivers), `disabled_at` when it was switched off and
 * `disabled_reason` why (null while it is on). A disabled webhook is never due and holds back no
 * event from the retention (services/webhooks/upkeep.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE webhooks
    ADD COLUMN failing_since timestamptz,
    ADD COLUMN disabled_at timestamptz,
    ADD COLUMN disabled_reason text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE webhooks
    DROP COLUMN IF EXISTS disabled_reason,
    DROP COLUMN IF EXISTS disabled_at,
    DROP COLUMN IF EXISTS failing_since`.execute(db);
}
