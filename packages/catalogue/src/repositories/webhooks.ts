import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { UserEventKind } from '../schema/database.ts';
import type { Db } from './shared.ts';
import { inTransaction } from './shared.ts';
import { latestUserEventPosition, type UserEventPosition } from './user-events.ts';

/** A webhook subscription as its owner sees it (the secret only where a caller needs it). */
export interface Webhook {
  id: number;
  userId: number;
  clientId: string;
  url: string;
  secret: string;
  kinds: UserEventKind[];
  created: Date;
  /** Delivered through this event. */
  position: UserEventPosition;
  /** Failed attempts in a row at the event after `position` (0 when the last one succeeded). */
  failures: number;
  nextAttemptAt: Date;
  lastError: string | null;
  /** When the current run of failures began (null while it delivers). */
  failingSince: Date | null;
  /** When it was switched off for failing too long (null: on); its owner switches it on again. */
  disabledAt: Date | null;
  disabledReason: string | null;
}

/**
 * Whose webhooks: one user's, made with one credential (`clientId`, as the API sees them), or with
 * any (no `clientId`: the account's own pages, where the person owns every credential).
 */
export interface WebhookScope {
  userId: number;
  clientId?: string;
}

/** One attempt to deliver one event. */
export interface WebhookDelivery {
  eventId: string;
  attempt: number;
  ok: boolean;
  status: number | null;
  error: string | null;
  durationMs: number;
  at: Date;
}

interface WebhookRow {
  id: number;
  user_id: number;
  client_id: string;
  url: string;
  secret: string;
  kinds: UserEventKind[];
  created: Date;
  after_seq: string;
  after_event: string;
  failures: number;
  next_attempt_at: Date;
  last_error: string | null;
  failing_since: Date | null;
  disabled_at: Date | null;
  disabled_reason: string | null;
}

const WEBHOOK_COLUMNS = [
  'id',
  'user_id',
  'client_id',
  'url',
  'secret',
  'kinds',
  'created',
  'after_seq',
  'after_event',
  'failures',
  'next_attempt_at',
  'last_error',
  'failing_since',
  'disabled_at',
  'disabled_reason',
] as const;

function toWebhook(r: WebhookRow): Webhook {
  return {
    id: r.id,
    userId: r.user_id,
    clientId: r.client_id,
    url: r.url,
    secret: r.secret,
    kinds: r.kinds,
    created: new Date(r.created),
    position: { seq: String(r.after_seq), id: String(r.after_event) },
    failures: r.failures,
    nextAttemptAt: new Date(r.next_attempt_at),
    lastError: r.last_error,
    failingSince: r.failing_since ? new Date(r.failing_since) : null,
    disabledAt: r.disabled_at ? new Date(r.disabled_at) : null,
    disabledReason: r.disabled_reason,
  };
}

/** A new subscription; it delivers the events that commit after it is made. */
export async function createWebhook(
  db: Db,
  input: { userId: number; clientId: string; url: string; secret: string; kinds: readonly UserEventKind[] },
): Promise<Webhook> {
  return inTransaction(db, async (trx) => {
    const start = await latestUserEventPosition(trx);
    const row = await trx
      .insertInto('webhooks')
      .values({
        user_id: input.userId,
        client_id: input.clientId,
        url: input.url,
        secret: input.secret,
        kinds: [...input.kinds],
        after_seq: start.seq,
        after_event: start.id,
      })
      .returning(WEBHOOK_COLUMNS)
      .executeTakeFirstOrThrow();
    return toWebhook(row as WebhookRow);
  });
}

/** The subscriptions in `scope`, oldest first. */
export async function listWebhooks(db: Db, scope: WebhookScope): Promise<Webhook[]> {
  let query = db.selectFrom('webhooks').select(WEBHOOK_COLUMNS).where('user_id', '=', scope.userId);
  if (scope.clientId !== undefined) query = query.where('client_id', '=', scope.clientId);
  const rows = await query.orderBy('id').execute();
  return rows.map((r) => toWebhook(r as WebhookRow));
}

export async function countWebhooks(db: Db, userId: number, clientId: string): Promise<number> {
  const row = await db
    .selectFrom('webhooks')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('user_id', '=', userId)
    .where('client_id', '=', clientId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** One subscription, when it is in `scope` (else undefined, as for none). */
export async function findWebhook(db: Db, id: number, scope?: WebhookScope): Promise<Webhook | undefined> {
  let query = db.selectFrom('webhooks').select(WEBHOOK_COLUMNS).where('id', '=', id);
  if (scope) {
    query = query.where('user_id', '=', scope.userId);
    if (scope.clientId !== undefined) query = query.where('client_id', '=', scope.clientId);
  }
  const row = await query.executeTakeFirst();
  return row ? toWebhook(row as WebhookRow) : undefined;
}

/** Removes a subscription and its log; false when there is none with this id in `scope`. */
export async function deleteWebhook(db: Db, id: number, scope: WebhookScope): Promise<boolean> {
  let query = db.deleteFrom('webhooks').where('id', '=', id).where('user_id', '=', scope.userId);
  if (scope.clientId !== undefined) query = query.where('client_id', '=', scope.clientId);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * Switches a subscription on again: it is due at once and delivers, in order, the events after
 * where it stopped that are still kept. The subscription, or undefined when none is in `scope`.
 */
export async function enableWebhook(db: Db, id: number, scope: WebhookScope): Promise<Webhook | undefined> {
  let query = db
    .updateTable('webhooks')
    .set({
      disabled_at: null,
      disabled_reason: null,
      failures: 0,
      failing_since: null,
      last_error: null,
      next_attempt_at: sql<Date>`now()`,
    })
    .where('id', '=', id)
    .where('user_id', '=', scope.userId);
  if (scope.clientId !== undefined) query = query.where('client_id', '=', scope.clientId);
  const row = await query.returning(WEBHOOK_COLUMNS).executeTakeFirst();
  return row ? toWebhook(row as WebhookRow) : undefined;
}

/**
 * Subscriptions with an event to deliver whose next attempt is due and which nobody holds now,
 * the longest waiting first.
 */
export async function dueWebhookIds(db: Db, limit: number): Promise<number[]> {
  const { rows } = await sql<{ id: number }>`
    select w.id from webhooks w
    where w.disabled_at is null and w.next_attempt_at <= now()
      and (w.leased_until is null or w.leased_until < now())
      and exists (
        select 1 from user_events e
        where e.user_id = w.user_id and e.kind = any(w.kinds)
          and (e.seq, e.id) > (w.after_seq, w.after_event))
    order by w.next_attempt_at
    limit ${limit}`.execute(db);
  return rows.map((r) => r.id);
}

/** A hold on one subscription while its events are delivered. */
export interface WebhookLease {
  webhook: Webhook;
  token: string;
}

/**
 * Takes the subscription for `ttlMs` unless someone holds it or its next attempt is not due: one
 * deliverer at a time keeps its events in order.
 */
export async function claimWebhook(db: Db, id: number, ttlMs: number): Promise<WebhookLease | undefined> {
  const token = randomUUID();
  const row = await db
    .updateTable('webhooks')
    .set({
      lease_token: token,
      leased_until: sql<Date>`now() + ${`${Math.ceil(ttlMs)} milliseconds`}::interval`,
    })
    .where('id', '=', id)
    .where('disabled_at', 'is', null)
    .where('next_attempt_at', '<=', sql<Date>`now()`)
    .where((eb) => eb.or([eb('leased_until', 'is', null), eb('leased_until', '<', sql<Date>`now()`)]))
    .returning(WEBHOOK_COLUMNS)
    .executeTakeFirst();
  return row ? { webhook: toWebhook(row as WebhookRow), token } : undefined;
}

/** Lets go of a subscription (its lease), whatever its state. */
export async function releaseWebhook(db: Db, lease: WebhookLease): Promise<void> {
  await db
    .updateTable('webhooks')
    .set({ lease_token: null, leased_until: null })
    .where('id', '=', lease.webhook.id)
    .where('lease_token', '=', lease.token)
    .execute();
}

type Attempt = Omit<WebhookDelivery, 'at'>;

/** What recording an attempt did: kept it, switched the subscription off, or lost the lease. */
export type RecordedAttempt = 'recorded' | 'disabled' | 'lost';

/**
 * Records an attempt: a success moves the subscription past the event; a failure keeps it there
 * until `retryAt`, and switches it off when its failures began at or before `disableIfFailingSince`
 * (with `disabledReason`). 'lost' when the lease was lost (another deliverer took over; nothing
 * recorded).
 */
export async function recordWebhookAttempt(
  db: Db,
  lease: WebhookLease,
  attempt: Attempt & { position: UserEventPosition },
  failure: { retryAt?: Date; disableIfFailingSince?: Date; disabledReason?: string } = {},
): Promise<RecordedAttempt> {
  return inTransaction(db, async (trx) => {
    const since = sql<Date>`coalesce(failing_since, now())`;
    const disable =
      failure.disableIfFailingSince === undefined
        ? sql<boolean>`false`
        : sql<boolean>`${since} <= ${failure.disableIfFailingSince}`;
    const moved = await trx
      .updateTable('webhooks')
      .set(
        attempt.ok
          ? {
              after_seq: attempt.position.seq,
              after_event: attempt.position.id,
              failures: 0,
              failing_since: null,
              last_error: null,
            }
          : {
              failures: attempt.attempt,
              failing_since: since,
              last_error: attempt.error ?? `HTTP ${attempt.status}`,
              next_attempt_at: failure.retryAt ?? new Date(),
              disabled_at: sql<Date | null>`case when ${disable} then now() end`,
              disabled_reason: sql<
                string | null
              >`case when ${disable} then ${failure.disabledReason ?? null}::text end`,
            },
      )
      .where('id', '=', lease.webhook.id)
      .where('lease_token', '=', lease.token)
      .returning(['disabled_at'])
      .executeTakeFirst();
    if (!moved) return 'lost';
    await trx
      .insertInto('webhook_deliveries')
      .values({
        webhook_id: lease.webhook.id,
        event_id: attempt.eventId,
        attempt: attempt.attempt,
        ok: attempt.ok,
        status: attempt.status,
        error: attempt.error,
        duration_ms: Math.round(attempt.durationMs),
      })
      .execute();
    return moved.disabled_at ? 'disabled' : 'recorded';
  });
}

/** The latest attempts of one subscription, newest first. */
export async function listWebhookDeliveries(
  db: Db,
  webhookId: number,
  limit: number,
): Promise<WebhookDelivery[]> {
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select(['event_id', 'attempt', 'ok', 'status', 'error', 'duration_ms', 'at'])
    .where('webhook_id', '=', webhookId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    eventId: String(r.event_id),
    attempt: r.attempt,
    ok: r.ok,
    status: r.status,
    error: r.error,
    durationMs: r.duration_ms,
    at: new Date(r.at),
  }));
}

/**
 * Removes, oldest first and `batch` rows per statement, the delivery attempts logged before
 * `before`. Returns how many went.
 */
export async function pruneWebhookDeliveries(db: Db, before: Date, batch = 5_000): Promise<number> {
  let removed = 0;
  for (;;) {
    const result = await sql`
      delete from webhook_deliveries where id in (
        select id from webhook_deliveries where at < ${before} order by id limit ${batch})`.execute(db);
    const n = Number(result.numAffectedRows ?? 0);
    removed += n;
    if (n < batch) return removed;
  }
}
