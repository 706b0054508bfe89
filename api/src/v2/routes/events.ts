import { PassThrough } from 'node:stream';
import {
  decodeEventPosition,
  encodeEventPosition,
  USER_EVENT_KINDS,
  type UserEvent,
  type UserEventPosition,
  type Webhook,
  type WebhookDelivery,
} from '@earshot/catalogue';
import { ValidationError } from '@earshot/common';
import { eventBody, parseEventKinds, type WebhookOwner } from '@earshot/services';
import { z } from 'zod';
import type { EventHub, MissedEvents } from '../../application/event-hub.ts';
import type { WebhookStore } from '../../application/ports.ts';
import type { Principal } from '../../framework/auth/principal.ts';
import { type AnyRoute, defineRoute } from '../../framework/http/route.ts';

const KINDS = USER_EVENT_KINDS.join(', ');
/** A comment line this often keeps the stream's connection (and any proxy's) from going idle. */
const HEARTBEAT_MS = 15_000;

const webhookSchema = z.object({
  id: z.number().int(),
  url: z.string(),
  events: z.array(z.enum(USER_EVENT_KINDS)).describe('the kinds of event it receives'),
  created: z.string(),
  failures: z
    .number()
    .int()
    .describe('failed attempts in a row at the next event (0: caught up or delivering)'),
  next_attempt: z.string().nullable().describe('when the next event is tried again after a failure'),
  last_error: z.string().nullable(),
  active: z
    .boolean()
    .describe(
      'false once it was switched off for failing continuously (WEBHOOK_DISABLE_AFTER_HOURS, default 72 h); POST to `enable/` switches it on',
    ),
  disabled_at: z.string().nullable().describe('when it was switched off (null while active)'),
  disabled_reason: z.string().nullable(),
  deliveries: z.string().describe('its delivery log'),
});
const createdWebhookSchema = webhookSchema.extend({
  secret: z
    .string()
    .describe(
      'signs every delivery (Earshot-Signature: t=<unix time>,v1=<HMAC-SHA256 of "<t>.<body>">); shown only here',
    ),
});
const deliverySchema = z.object({
  event_id: z.string(),
  attempt: z.number().int(),
  ok: z.boolean(),
  status: z.number().int().nullable().describe("the receiver's HTTP status, null when it did not answer"),
  error: z.string().nullable(),
  duration_ms: z.number().int(),
  at: z.string(),
});
const idParams = z.object({ webhook_id: z.string().regex(/^\d{1,9}$/, 'webhook_id: a whole number') });

function ownerOf(principal: Principal | null): WebhookOwner {
  // auth 'read' guarantees a principal on these routes.
  const p = principal as Principal;
  return { userId: p.userId, clientId: p.clientId };
}

function presentWebhook(w: Webhook, origin: string): z.input<typeof webhookSchema> {
  return {
    id: w.id,
    url: w.url,
    events: w.kinds,
    created: w.created.toISOString(),
    failures: w.failures,
    next_attempt: w.failures > 0 ? w.nextAttemptAt.toISOString() : null,
    last_error: w.lastError,
    active: w.disabledAt === null,
    disabled_at: w.disabledAt?.toISOString() ?? null,
    disabled_reason: w.disabledReason,
    deliveries: `${origin}/apiv2/me/webhooks/${w.id}/deliveries/`,
  };
}

function presentDelivery(d: WebhookDelivery): z.input<typeof deliverySchema> {
  return {
    event_id: d.eventId,
    attempt: d.attempt,
    ok: d.ok,
    status: d.status,
    error: d.error,
    duration_ms: d.durationMs,
    at: d.at.toISOString(),
  };
}

/**
 * The first event of a stream resumed from before events the retention removed: what was lost, where
 * the stream goes on, and where to read afresh what the lost events would have said.
 */
function missedBody(missed: MissedEvents, lastEventId: string, origin: string, username: string) {
  return {
    type: 'missed',
    detail:
      'Events after this Last-Event-ID were removed (events are kept EVENTS_RETENTION_DAYS days once delivered): read your sounds afresh (resync), then go on with this stream, which continues with the events still kept after it.',
    last_event_id: lastEventId,
    removed_through: encodeEventPosition(missed.removedThrough),
    oldest_event_id: missed.oldestKept === null ? null : encodeEventPosition(missed.oldestKept),
    resync: {
      sounds: `${origin}/apiv2/users/${encodeURIComponent(username)}/sounds/?fields=id,name,num_comments,num_ratings,avg_rating,num_downloads`,
      pending_uploads: `${origin}/apiv2/sounds/pending_uploads/`,
    },
  };
}

/**
 * Webhooks per credential and the event stream of the signed-in user's sounds (docs/api.md,
 * "Events"). Registering a webhook changes nothing of the catalogue: an API key (scope `read`) may.
 */
export function eventRoutes(events: { hub: EventHub; webhooks: WebhookStore }): AnyRoute[] {
  const { hub, webhooks } = events;
  return [
    defineRoute({
      method: 'POST',
      path: '/apiv2/me/webhooks/',
      operationId: 'createWebhook',
      summary: "earshot: register a URL that receives signed POSTs of the events about the user's sounds",
      description: `Kinds: ${KINDS}. The URL must be http(s) on a public address.`,
      tags: ['users'],
      auth: 'read',
      scope: 'read',
      bodyParams: true,
      query: z.object({
        url: z.string().optional().describe('where deliveries are POSTed (http or https, a public address)'),
        events: z.string().optional().describe(`comma-separated kinds (${KINDS}); absent: all`),
      }),
      response: createdWebhookSchema,
      errors: [409],
      handler: async ({ query, principal, origin, ctx }) => {
        const webhook = await webhooks.register(ownerOf(principal), {
          url: query.url ?? '',
          events: query.events,
        });
        ctx.status = 201;
        ctx.body = { ...presentWebhook(webhook, origin), secret: webhook.secret };
        return { handled: true };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/apiv2/me/webhooks/',
      operationId: 'listWebhooks',
      summary: 'earshot: the webhooks this credential registered for its user',
      tags: ['users'],
      auth: 'read',
      response: z.object({ webhooks: z.array(webhookSchema) }),
      handler: async ({ principal, origin }) => ({
        webhooks: (await webhooks.list(ownerOf(principal))).map((w) => presentWebhook(w, origin)),
      }),
    }),
    defineRoute({
      method: 'GET',
      path: '/apiv2/me/webhooks/{webhook_id}/',
      operationId: 'webhook',
      summary: 'earshot: one of the webhooks this credential registered, with its delivery state',
      tags: ['users'],
      auth: 'read',
      params: idParams,
      response: webhookSchema,
      handler: async ({ params, principal, origin }) =>
        presentWebhook(await webhooks.get(ownerOf(principal), Number(params.webhook_id)), origin),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/apiv2/me/webhooks/{webhook_id}/',
      operationId: 'deleteWebhook',
      summary: 'earshot: stop and remove one of the webhooks this credential registered (204)',
      tags: ['users'],
      auth: 'read',
      scope: 'read',
      params: idParams,
      response: z.object({}),
      handler: async ({ params, principal, ctx }) => {
        await webhooks.remove(ownerOf(principal), Number(params.webhook_id));
        ctx.status = 204;
        return { handled: true };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/apiv2/me/webhooks/{webhook_id}/enable/',
      operationId: 'enableWebhook',
      summary:
        'earshot: switch on a webhook that was switched off for failing; it delivers from where it stopped',
      tags: ['users'],
      auth: 'read',
      scope: 'read',
      params: idParams,
      response: webhookSchema,
      handler: async ({ params, principal, origin }) =>
        presentWebhook(await webhooks.enable(ownerOf(principal), Number(params.webhook_id)), origin),
    }),
    defineRoute({
      method: 'GET',
      path: '/apiv2/me/webhooks/{webhook_id}/deliveries/',
      operationId: 'webhookDeliveries',
      summary: "earshot: a webhook's latest delivery attempts, newest first",
      tags: ['users'],
      auth: 'read',
      params: idParams,
      query: z.object({
        limit: z.string().optional().describe('attempts to list, 1 to 1000 (default 100)'),
      }),
      response: z.object({ deliveries: z.array(deliverySchema) }),
      handler: async ({ params, query, principal }) => {
        const limit = query.limit === undefined ? 100 : Number(query.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
          throw new ValidationError('limit: an integer from 1 to 1000');
        const list = await webhooks.deliveries(ownerOf(principal), Number(params.webhook_id), limit);
        return { deliveries: list.map(presentDelivery) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/apiv2/me/events/',
      operationId: 'myEvents',
      summary:
        "earshot: the events about the user's sounds as a server-sent event stream, resumable with Last-Event-ID",
      description:
        'text/event-stream: each event has `id:` (pass it back as the Last-Event-ID header or `last_event_id`), `event:` (its kind) and `data:` (the JSON a webhook receives). Resuming from before events the retention removed (EVENTS_RETENTION_DAYS), the stream first sends `event: missed` (no `id:`) whose `data:` is `{"type": "missed", "detail", "last_event_id", "removed_through" (the id of the latest event removed), "oldest_event_id" (the oldest kept after it, where the stream goes on; null when none yet), "resync": {"sounds", "pending_uploads"} (where to read afresh what was missed)}`, then the events still kept. A Last-Event-ID this server did not hand out (not an id, or an id no event here had: another server\'s, a restored database\'s) is a 400 whose `detail` says which and to connect again without it.',
      tags: ['users'],
      auth: 'read',
      query: z.object({
        last_event_id: z
          .string()
          .optional()
          .describe(
            'resume after this event (as the Last-Event-ID header does; the header wins); from before removed events the stream starts with `event: missed`',
          ),
        events: z.string().optional().describe(`comma-separated kinds (${KINDS}); absent: all`),
      }),
      response: 'event-stream',
      handler: async ({ query, principal, ctx, origin }) => {
        if (ctx.method === 'HEAD') {
          // The headers of the stream, and no follower for an answer that carries no body.
          ctx.status = 200;
          ctx.type = 'text/event-stream; charset=utf-8';
          ctx.body = '';
          return { handled: true };
        }
        const header = ctx.get('Last-Event-ID');
        const resume = header || query.last_event_id;
        const parameter = header ? 'Last-Event-ID' : 'last_event_id';
        const kindList = parseEventKinds(query.events);
        const kinds = new Set(kindList);
        const userId = ownerOf(principal).userId;
        let after: UserEventPosition;
        let missed: MissedEvents | undefined;
        if (resume) {
          after = decodeEventPosition(resume, parameter);
          missed = await hub.resume(userId, after, kindList, parameter);
        } else {
          after = await hub.latest();
        }
        const stream = new PassThrough();
        const write = (events: UserEvent[]) => {
          for (const e of events)
            if (kinds.has(e.kind))
              stream.write(
                `id: ${encodeEventPosition(e.position)}\nevent: ${e.kind}\ndata: ${JSON.stringify(eventBody(e))}\n\n`,
              );
        };
        stream.write(`retry: 2000\n: following the events of ${principal?.username}\n\n`);
        // No `id:`: a reconnect before the next event resumes from the same id and is told again.
        if (missed)
          stream.write(
            `event: missed\ndata: ${JSON.stringify(missedBody(missed, resume as string, origin, principal?.username ?? ''))}\n\n`,
          );
        const stop = await hub.follow(userId, after, write);
        const heartbeat = setInterval(() => stream.write(': keep-alive\n\n'), HEARTBEAT_MS);
        const end = () => {
          clearInterval(heartbeat);
          stop();
          stream.end();
        };
        if (ctx.res.destroyed) end();
        else ctx.res.once('close', end);
        ctx.status = 200;
        ctx.set('Content-Type', 'text/event-stream; charset=utf-8');
        ctx.set('Cache-Control', 'no-store');
        ctx.set('X-Accel-Buffering', 'no');
        ctx.body = stream;
        return { handled: true };
      },
    }),
  ];
}
