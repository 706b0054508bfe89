import { USER_EVENT_KINDS, type UserEventKind, type Webhook, type WebhookDelivery } from '@earshot/catalogue';
import { EarshotError, NotFoundError } from '@earshot/common';
import { listUserCredentials, WEB_CLIENT_ID } from '@earshot/services';
import type { Context } from 'koa';
import type { WebhookStore } from '../../application/ports.ts';
import type { WebDeps } from '../deps.ts';
import { render } from '../render.ts';
import { formFields, webState } from '../state.ts';

export const WEBHOOKS_PATH = '/apiv2/account/webhooks/';

/** Delivery attempts the log page shows, newest first. */
const LOG_LENGTH = 100;

/** What each kind of event means, in the words the form shows. */
const KIND_LABELS: Record<UserEventKind, string> = {
  processed: 'Processing finished',
  processing_failed: 'Processing failed',
  approved: 'Approved by a moderator',
  rejected: 'Rejected by a moderator',
  commented: 'Commented',
  rated: 'Rated',
  bookmarked: 'Bookmarked',
};

interface WebhookForm {
  url: string;
  kinds: UserEventKind[];
}

/** A webhook just made: the one answer that shows its secret. */
interface FreshWebhook {
  id: number;
  secret: string;
}

/**
 * The account's webhooks on the web (issue 36), over the same use cases as `/apiv2/me/webhooks/`.
 * A session has no credential: the pages show and change every webhook of the account, whichever
 * credential made it, and register new ones under the account's own set (WEB_CLIENT_ID).
 */
export function webhookPages(webhooks: WebhookStore) {
  const account = (ctx: Context) => ({ userId: webState(ctx).user!.id });

  async function listPage(
    ctx: Context,
    deps: WebDeps,
    view: { form?: WebhookForm; error?: string; notice?: string; fresh?: FreshWebhook } = {},
  ): Promise<void> {
    const user = webState(ctx).user!;
    const [list, credentials] = await Promise.all([
      webhooks.list(account(ctx)),
      listUserCredentials(deps.db, user.id),
    ]);
    const credentialNames = new Map(credentials.map((c) => [c.client_id, c.name]));
    const form = view.form ?? { url: '', kinds: [...USER_EVENT_KINDS] };
    await render(ctx, 'webhooks', {
      webhooks: list.map((w) => presentWebhook(w, credentialNames)),
      fresh: view.fresh,
      form,
      kinds: USER_EVENT_KINDS.map((kind) => ({
        kind,
        label: KIND_LABELS[kind],
        checked: form.kinds.includes(kind),
      })),
      disableAfterHours: deps.webhookDisableAfterHours ?? 72,
      error: view.error,
      notice: view.fresh
        ? 'The webhook is made. Copy its signing secret now: it is shown this once.'
        : view.notice,
    });
  }

  return {
    /** GET: the account's webhooks and the form adding one. */
    show(deps: WebDeps) {
      return async (ctx: Context) => {
        const notice =
          ctx.query.deleted === '1'
            ? 'The webhook is deleted, with its delivery log.'
            : ctx.query.enabled === '1'
              ? 'The webhook is on again: it delivers, from where it stopped, the events still kept.'
              : undefined;
        await listPage(ctx, deps, { notice });
      };
    },

    /** POST: adds a webhook; the answer (201, never cached) is the list with its secret shown once. */
    add(deps: WebDeps) {
      return async (ctx: Context) => {
        const fields = formFields(ctx);
        const form: WebhookForm = {
          url: (fields.url ?? '').trim(),
          kinds: USER_EVENT_KINDS.filter((kind) => fields[`event_${kind}`] === 'on'),
        };
        if (form.kinds.length === 0) {
          ctx.status = 400;
          await listPage(ctx, deps, { form, error: 'Choose at least one kind of event.' });
          return;
        }
        try {
          const made = await webhooks.register(
            { userId: webState(ctx).user!.id, clientId: WEB_CLIENT_ID },
            { url: form.url, events: form.kinds },
          );
          ctx.status = 201;
          await listPage(ctx, deps, { fresh: { id: made.id, secret: made.secret } });
        } catch (err) {
          if (!(err instanceof EarshotError) || (err.status !== 400 && err.status !== 409)) throw err;
          ctx.status = err.status;
          await listPage(ctx, deps, { form, error: `The webhook was not made: ${err.message}` });
        }
      };
    },

    /** POST …/:id/delete/: removes one, then back to the list. */
    remove(deps: WebDeps) {
      return async (ctx: Context) => {
        const id = webhookId(ctx);
        try {
          if (id === undefined) throw new NotFoundError('You have no webhook with this id.');
          await webhooks.remove(account(ctx), id);
        } catch (err) {
          return notFound(ctx, deps, err);
        }
        ctx.status = 303;
        ctx.redirect(`${WEBHOOKS_PATH}?deleted=1`);
      };
    },

    /** POST …/:id/enable/: switches one on again, then back to the list. */
    enable(deps: WebDeps) {
      return async (ctx: Context) => {
        const id = webhookId(ctx);
        try {
          if (id === undefined) throw new NotFoundError('You have no webhook with this id.');
          await webhooks.enable(account(ctx), id);
        } catch (err) {
          return notFound(ctx, deps, err);
        }
        ctx.status = 303;
        ctx.redirect(`${WEBHOOKS_PATH}?enabled=1`);
      };
    },

    /** GET …/:id/: one webhook's state and its delivery log, newest first. */
    log(deps: WebDeps) {
      return async (ctx: Context) => {
        const id = webhookId(ctx);
        let webhook: Webhook;
        let deliveries: WebhookDelivery[];
        try {
          if (id === undefined) throw new NotFoundError('You have no webhook with this id.');
          [webhook, deliveries] = await Promise.all([
            webhooks.get(account(ctx), id),
            webhooks.deliveries(account(ctx), id, LOG_LENGTH),
          ]);
        } catch (err) {
          return notFound(ctx, deps, err);
        }
        const credentials = await listUserCredentials(deps.db, webState(ctx).user!.id);
        await render(ctx, 'webhook', {
          webhook: presentWebhook(webhook, new Map(credentials.map((c) => [c.client_id, c.name]))),
          deliveries: deliveries.map((d) => ({
            ...d,
            atIso: d.at.toISOString(),
            atText: when(d.at),
            outcome: d.ok
              ? `Delivered (${d.status})`
              : d.status === null
                ? 'No answer'
                : `Refused (${d.status})`,
          })),
          logLength: LOG_LENGTH,
        });
      };
    },
  };

  /** An id that is not one of the account's webhooks: a 404 on the list page, saying so. */
  async function notFound(ctx: Context, deps: WebDeps, err: unknown): Promise<void> {
    if (!(err instanceof NotFoundError)) throw err;
    await listPage(ctx, deps, { error: 'You have no webhook with this id: nothing was changed.' });
    ctx.status = 404; // after render, which reads a 404 as "no status set yet"
  }
}

function webhookId(ctx: Context): number | undefined {
  const text = String(ctx.params.id ?? '');
  return /^\d{1,9}$/.test(text) ? Number(text) : undefined;
}

function when(date: Date): string {
  return date.toLocaleString('en-GB', {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    timeZone: 'UTC',
    timeZoneName: 'short',
  });
}

function presentWebhook(w: Webhook, credentialNames: Map<string, string>) {
  const madeWith =
    w.clientId === WEB_CLIENT_ID
      ? 'this website'
      : credentialNames.has(w.clientId)
        ? `the credential “${credentialNames.get(w.clientId)}”`
        : 'a revoked credential';
  const state = w.disabledAt
    ? { name: 'off', text: `Switched off ${when(w.disabledAt)}: ${w.disabledReason ?? 'it kept failing'}` }
    : w.failures > 0
      ? { name: 'failing', text: `Failing: ${w.failures} attempts in a row; next ${when(w.nextAttemptAt)}` }
      : { name: 'on', text: 'Delivering' };
  return {
    id: w.id,
    url: w.url,
    kinds: w.kinds.map((kind) => KIND_LABELS[kind]),
    allKinds: w.kinds.length === USER_EVENT_KINDS.length,
    madeWith,
    createdIso: w.created.toISOString(),
    createdText: when(w.created),
    disabled: w.disabledAt !== null,
    state,
    lastError: w.lastError,
  };
}
