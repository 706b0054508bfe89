import { type Kysely, sql } from 'kysely';

/**
 * What the events' retention removed (issue 36, docs/api.md "Events"), so that an event stream
 * resuming from before it is told it missed events instead of silently going on. Per user and
 * kind, the position (seq, id) of the latest event removed: a stream of that user resuming before
 * it, for that kind, missed at least that event; one resuming at or after it missed nothing.
 * `pruneUserEvents` (repositories/user-events.ts) keeps it in the statement that removes.
 *
 * Events removed before this table existed left no trace; numbers tell that some did (each
 * committed transaction with events took the next `seq`, so a seq missing from `user_events` lost
 * its events). Then one row for user 0 and kind `*` stands for every user and kind, through the
 * latest number taken: a stream resuming from any id of before this migration is told it may have
 * missed events.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE user_event_removals (
    user_id integer NOT NULL,
    kind text NOT NULL,
    through_seq bigint NOT NULL,
    through_id bigint NOT NULL,
    PRIMARY KEY (user_id, kind)
  )`.execute(db);
  // Whether any removal reached a position: a resume id that names no kept event may name a removed one.
  await sql`CREATE INDEX user_event_removals_through_idx ON user_event_removals (through_seq, through_id)`.execute(
    db,
  );
  await sql`INSERT INTO user_event_removals (user_id, kind, through_seq, through_id)
    SELECT 0, '*', c.seq, 9223372036854775807 FROM user_events_clock c
    WHERE c.id = 1 AND c.seq > (SELECT count(DISTINCT seq) FROM user_events WHERE seq IS NOT NULL)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE user_event_removals`.execute(db);
}
