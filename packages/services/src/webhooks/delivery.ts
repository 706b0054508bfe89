import {
  claimWebhook,
  type Db,
  readUserEvents,
  recordWebhookAttempt,
  releaseWebhook,
  type UserEvent,
  type WebhookLease,
} from '@earshot/catalogue';
import { eventBody } from './event-body.ts';
import type { WebhookSender } from './sender.ts';
import { SIGNATURE_HEADER, signWebhookBody } from './signature.ts';
import { resolveWebhookTarget } from './targets.ts';

export interface DeliveryOptions {
  sender: WebhookSender;
  /** WEBHOOK_ALLOW_PRIVATE: deliver to loopback and private addresses too. */
  allowPrivate: boolean;
  /** How long a receiver gets to answer (WEBHOOK_TIMEOUT_MS). */
  timeoutMs: number;
  /** How long one deliverer holds a subscription before another may take it over (default 60 s). */
  leaseMs?: number;
  /** The wait before the retry after the n-th failure in a row (default: 1 s doubling up to 60 s, ±20 %). */
  backoffMs?: (failures: number) => number;
  /**
   * A subscription whose every attempt failed for this long is switched off (WEBHOOK_DISABLE_AFTER_HOURS,
   * default 72 h); its owner switches it on again.
   */
  disableAfterMs?: number;
}

/** What one turn at a subscription came to. */
export type DeliveryTurn = 'busy' | 'caught-up' | 'retrying' | 'disabled' | 'yielded' | 'lost';

export const DEFAULT_DISABLE_AFTER_MS = 72 * 3_600_000;

const EVENTS_PER_READ = 50;

export function exponentialBackoff(baseMs: number, maxMs: number): (failures: number) => number {
  return (failures) => {
    const wait = Math.min(maxMs, baseMs * 2 ** Math.min(30, failures - 1));
    return Math.round(wait * (0.8 + Math.random() * 0.4));
  };
}

/**
 * Delivers a subscription's pending events, one at a time in their order, while the receiver takes
 * them: each success moves the subscription past its event; the first failure is logged and the
 * subscription waits out its backoff at that event (nothing later overtakes it). An event is only
 * marked delivered after the receiver answered 2xx, so a crash between the two repeats it (at
 * least once; the receiver drops repeats by `Earshot-Event-Id`).
 */
export async function deliverWebhook(
  db: Db,
  webhookId: number,
  options: DeliveryOptions,
): Promise<DeliveryTurn> {
  const leaseMs = options.leaseMs ?? 60_000;
  const lease = await claimWebhook(db, webhookId, leaseMs);
  if (!lease) return 'busy';
  // Stop while the lease still covers a whole attempt, so two deliverers never overlap.
  const stopBy = Date.now() + leaseMs - options.timeoutMs - 2_000;
  try {
    let position = lease.webhook.position;
    let failures = lease.webhook.failures;
    for (;;) {
      const events = await readUserEvents(db, {
        after: position,
        limit: EVENTS_PER_READ,
        userId: lease.webhook.userId,
        kinds: lease.webhook.kinds,
      });
      if (events.length === 0) return 'caught-up';
      for (const event of events) {
        if (Date.now() > stopBy) return 'yielded';
        const attempt = failures + 1;
        const outcome = await attemptDelivery(lease, event, attempt, options);
        const recorded = await recordWebhookAttempt(
          db,
          lease,
          { ...outcome, eventId: event.id, attempt, position: event.position },
          outcome.ok ? {} : failureRule(attempt, options),
        );
        if (recorded === 'lost') return 'lost';
        if (recorded === 'disabled') return 'disabled';
        if (!outcome.ok) return 'retrying';
        position = event.position;
        failures = 0;
      }
    }
  } finally {
    await releaseWebhook(db, lease);
  }
}

/** A length of time in the largest whole unit that says it: 72 hours, 30 minutes, 400 ms. */
function spoken(ms: number): string {
  for (const [unit, size] of [
    ['hours', 3_600_000],
    ['minutes', 60_000],
    ['seconds', 1_000],
  ] as const)
    if (ms >= size) return `${Math.round((ms / size) * 10) / 10} ${unit}`;
  return `${ms} ms`;
}

/** When the next attempt comes after a failure, and whether this one switches the subscription off. */
function failureRule(attempt: number, options: DeliveryOptions) {
  const disableAfterMs = options.disableAfterMs ?? DEFAULT_DISABLE_AFTER_MS;
  return {
    retryAt: new Date(Date.now() + (options.backoffMs ?? exponentialBackoff(1_000, 60_000))(attempt)),
    disableIfFailingSince: new Date(Date.now() - disableAfterMs),
    disabledReason: `every delivery attempt failed for ${spoken(disableAfterMs)}`,
  };
}

async function attemptDelivery(
  lease: WebhookLease,
  event: UserEvent,
  attempt: number,
  options: DeliveryOptions,
): Promise<{ ok: boolean; status: number | null; error: string | null; durationMs: number }> {
  const body = JSON.stringify(eventBody(event));
  const started = performance.now();
  try {
    // Resolved and checked at every attempt: a name may point elsewhere since it was registered.
    const target = await resolveWebhookTarget(lease.webhook.url, options.allowPrivate);
    const { status } = await options.sender.post(
      target,
      body,
      {
        [SIGNATURE_HEADER]: signWebhookBody(lease.webhook.secret, body, Math.floor(Date.now() / 1000)),
        'Earshot-Event-Id': event.id,
        'Earshot-Event': event.kind,
        'Earshot-Webhook-Id': String(lease.webhook.id),
        'Earshot-Delivery-Attempt': String(attempt),
        'User-Agent': 'earshot-webhooks',
      },
      options.timeoutMs,
    );
    const ok = status >= 200 && status < 300;
    return {
      ok,
      status,
      error: ok ? null : `the receiver answered ${status}`,
      durationMs: performance.now() - started,
    };
  } catch (err) {
    return {
      ok: false,
      status: null,
      error: (err as Error).message.slice(0, 500),
      durationMs: performance.now() - started,
    };
  }
}
