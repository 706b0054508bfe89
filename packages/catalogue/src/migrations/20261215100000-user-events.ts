import { type Kysely, sql } from 'kysely';

/**
 * Events about a user's own sounds (issue 36): processing finished or failed, approved, rejected,
 * commented, rated, bookmarked. Triggers write them in the transaction that makes the change, so an
 * event exists exactly when its change committed, whichever process made it (API, worker, CLI).
 * `user_events` is the outbox both the webhooks (`webhooks`, each with the position it has
 * delivered through) and the event stream (`/apiv2/me/events/`) read from.
 *
 * Events are numbered at commit, as `sound_changes` are (migration 20261210300000 says why): a
 * deferred trigger takes one number per transaction from a clock row it holds locked until the
 * commit ends, so a reader that has passed (seq, id) never meets an event committing later before
 * it. Each event is written once and never changed, so a retried delivery carries the same body.
 */
const KINDS = ['processed', 'processing_failed', 'approved', 'rejected', 'commented', 'rated', 'bookmarked'];

export async function up(db: Kysely<unknown>): Promise<void> {
  const kinds = sql.raw(KINDS.map((k) => `'${k}'`).join(', '));
  await sql`CREATE TABLE user_events (
    id bigserial PRIMARY KEY,
    user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    sound_id integer NOT NULL,
    kind text NOT NULL CHECK (kind IN (${kinds})),
    data jsonb NOT NULL DEFAULT '{}'::jsonb,
    created timestamptz NOT NULL DEFAULT now(),
    seq bigint
  )`.execute(db);
  await sql`CREATE INDEX user_events_user_order_idx ON user_events (user_id, seq, id)`.execute(db);
  await sql`CREATE INDEX user_events_order_idx ON user_events (seq, id)`.execute(db);

  await sql`CREATE TABLE user_events_clock (
    id smallint PRIMARY KEY CHECK (id = 1),
    seq bigint NOT NULL
  )`.execute(db);
  await sql`INSERT INTO user_events_clock (id, seq) VALUES (1, 0)`.execute(db);

  await sql`CREATE FUNCTION user_events_number() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      n bigint := nullif(current_setting('earshot.user_events_seq', true), '')::bigint;
    BEGIN
      IF n IS NULL THEN
        UPDATE user_events_clock SET seq = seq + 1 WHERE id = 1 RETURNING seq INTO n;
        PERFORM set_config('earshot.user_events_seq', n::text, true);
      END IF;
      UPDATE user_events SET seq = n WHERE id = NEW.id;
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE CONSTRAINT TRIGGER user_events_numbered AFTER INSERT ON user_events
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION user_events_number()`.execute(db);

  // The sound's owner hears of their sound; `data` carries what a receiver shows without asking back.
  await sql`CREATE FUNCTION user_event_add(sound integer, event_kind text, extra jsonb) RETURNS void
    LANGUAGE sql AS $$
      INSERT INTO user_events (user_id, sound_id, kind, data)
      SELECT s.user_id, s.id, event_kind, jsonb_build_object('sound_name', s.name) || extra
      FROM sounds s WHERE s.id = sound
    $$`.execute(db);

  await sql`CREATE FUNCTION user_events_sound_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.processing_state IS DISTINCT FROM OLD.processing_state THEN
        IF NEW.processing_state = 'Processed' THEN
          PERFORM user_event_add(NEW.id, 'processed', '{}'::jsonb);
        ELSIF NEW.processing_state = 'Failed' THEN
          PERFORM user_event_add(NEW.id, 'processing_failed',
            jsonb_build_object('error', coalesce(NEW.processing_error, '')));
        END IF;
      END IF;
      IF NEW.moderation_state IS DISTINCT FROM OLD.moderation_state THEN
        IF NEW.moderation_state = 'ok' THEN
          PERFORM user_event_add(NEW.id, 'approved', '{}'::jsonb);
        ELSIF NEW.moderation_state = 'rejected' THEN
          PERFORM user_event_add(NEW.id, 'rejected',
            jsonb_build_object('reason', NEW.moderation_reason));
        END IF;
      END IF;
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER sounds_user_events AFTER UPDATE OF processing_state, moderation_state ON sounds
    FOR EACH ROW EXECUTE FUNCTION user_events_sound_trigger()`.execute(db);

  await sql`CREATE FUNCTION user_events_comment_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM user_event_add(NEW.sound_id, 'commented', jsonb_build_object(
        'comment_id', NEW.id, 'comment', NEW.comment,
        'username', (SELECT username FROM users WHERE id = NEW.user_id)));
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER comments_user_events AFTER INSERT ON comments
    FOR EACH ROW EXECUTE FUNCTION user_events_comment_trigger()`.execute(db);

  await sql`CREATE FUNCTION user_events_rating_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' OR NEW.rating IS DISTINCT FROM OLD.rating THEN
        PERFORM user_event_add(NEW.sound_id, 'rated', jsonb_build_object('rating', NEW.rating,
          'username', (SELECT username FROM users WHERE id = NEW.user_id)));
      END IF;
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER ratings_user_events AFTER INSERT OR UPDATE ON ratings
    FOR EACH ROW EXECUTE FUNCTION user_events_rating_trigger()`.execute(db);

  await sql`CREATE FUNCTION user_events_bookmark_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM user_event_add(NEW.sound_id, 'bookmarked', jsonb_build_object(
        'username', (SELECT username FROM users WHERE id = NEW.user_id)));
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER bookmarks_user_events AFTER INSERT ON bookmarks
    FOR EACH ROW EXECUTE FUNCTION user_events_bookmark_trigger()`.execute(db);

  // A subscription delivers, in order, the events of its kinds after (after_seq, after_event); it
  // starts at the position of the latest event when it is made. The secret signs each body, so it
  // is kept as written (a digest could not sign).
  await sql`CREATE TABLE webhooks (
    id serial PRIMARY KEY,
    user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    client_id text NOT NULL,
    url text NOT NULL,
    secret text NOT NULL,
    kinds text[] NOT NULL,
    created timestamptz NOT NULL DEFAULT now(),
    after_seq bigint NOT NULL,
    after_event bigint NOT NULL,
    failures integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    last_error text,
    leased_until timestamptz,
    lease_token text
  )`.execute(db);
  await sql`CREATE INDEX webhooks_user_idx ON webhooks (user_id)`.execute(db);

  await sql`CREATE TABLE webhook_deliveries (
    id bigserial PRIMARY KEY,
    webhook_id integer NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    event_id bigint NOT NULL,
    attempt integer NOT NULL,
    ok boolean NOT NULL,
    status integer,
    error text,
    duration_ms integer NOT NULL,
    at timestamptz NOT NULL DEFAULT now()
  )`.execute(db);
  await sql`CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS webhook_deliveries`.execute(db);
  await sql`DROP TABLE IF EXISTS webhooks`.execute(db);
  await sql`DROP TRIGGER IF EXISTS bookmarks_user_events ON bookmarks`.execute(db);
  await sql`DROP TRIGGER IF EXISTS ratings_user_events ON ratings`.execute(db);
  await sql`DROP TRIGGER IF EXISTS comments_user_events ON comments`.execute(db);
  await sql`DROP TRIGGER IF EXISTS sounds_user_events ON sounds`.execute(db);
  for (const fn of [
    'user_events_bookmark_trigger()',
    'user_events_rating_trigger()',
    'user_events_comment_trigger()',
    'user_events_sound_trigger()',
    'user_event_add(integer, text, jsonb)',
  ])
    await sql`DROP FUNCTION IF EXISTS ${sql.raw(fn)}`.execute(db);
  await sql`DROP TABLE IF EXISTS user_events`.execute(db);
  await sql`DROP FUNCTION IF EXISTS user_events_number()`.execute(db);
  await sql`DROP TABLE IF EXISTS user_events_clock`.execute(db);
}
