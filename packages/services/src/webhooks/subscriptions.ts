import { randomBytes } from 'node:crypto';
import {
  ConflictError,
  countWebhooks,
  createWebhook,
  type Db,
  deleteWebhook,
  enableWebhook,
  findWebhook,
  listWebhookDeliveries,
  listWebhooks,
  USER_EVENT_KINDS,
  type UserEventKind,
  type Webhook,
  type WebhookDelivery,
  type WebhookScope,
} from '@earshot/catalogue';
import { NotFoundError, ValidationError } from '@earshot/common';
import { resolveWebhookTarget } from './targets.ts';

/** The user and credential a subscription belongs to: only they see and change it. */
export interface WebhookOwner {
  userId: number;
  clientId: string;
}

/**
 * The credential the account's own web pages register webhooks with: the web has a session, no
 * credential, so its webhooks form one more set beside each credential's (no credential's client id
 * has a colon). The pages show and change all of the account's webhooks (a scope without
 * `clientId`); the API shows a credential only its own.
 */
export const WEB_CLIENT_ID = 'web:account';

export const WEBHOOKS_PER_CREDENTIAL = 20;

/**
 * Reads `events` (a list, or comma-separated text): kinds from USER_EVENT_KINDS; absent or empty
 * means all of them.
 */
export function parseEventKinds(events: string | readonly string[] | undefined): UserEventKind[] {
  const given = (typeof events === 'string' ? events.split(',') : (events ?? []))
    .map((k) => k.trim())
    .filter(Boolean);
  if (given.length === 0) return [...USER_EVENT_KINDS];
  const unknown = given.filter((k) => !(USER_EVENT_KINDS as readonly string[]).includes(k));
  if (unknown.length > 0)
    throw new ValidationError(
      `events: unknown ${unknown.join(', ')} (known: ${USER_EVENT_KINDS.join(', ')})`,
    );
  return [...new Set(given)] as UserEventKind[];
}

/**
 * Registers a URL for the owner's events. The URL must answer the SSRF rules (targets.ts); the
 * secret that signs every delivery is returned here and never again.
 */
export async function registerWebhook(
  db: Db,
  owner: WebhookOwner,
  request: { url: string; events?: string | readonly string[] },
  options: { allowPrivate: boolean },
): Promise<Webhook> {
  if (!request.url) throw new ValidationError('url: required');
  const kinds = parseEventKinds(request.events);
  await resolveWebhookTarget(request.url, options.allowPrivate);
  if ((await countWebhooks(db, owner.userId, owner.clientId)) >= WEBHOOKS_PER_CREDENTIAL)
    throw new ConflictError(
      `This credential has ${WEBHOOKS_PER_CREDENTIAL} webhooks already; delete one before adding another.`,
    );
  const secret = `whsec_${randomBytes(32).toString('base64url')}`;
  return createWebhook(db, { ...owner, url: request.url, secret, kinds });
}

export function myWebhooks(db: Db, scope: WebhookScope): Promise<Webhook[]> {
  return listWebhooks(db, scope);
}

function notFound(scope: WebhookScope): NotFoundError {
  return new NotFoundError(
    scope.clientId === undefined
      ? 'You have no webhook with this id.'
      : 'No webhook with this id was made with this credential.',
  );
}

export async function myWebhook(db: Db, scope: WebhookScope, id: number): Promise<Webhook> {
  const webhook = await findWebhook(db, id, scope);
  if (!webhook) throw notFound(scope);
  return webhook;
}

export async function removeMyWebhook(db: Db, scope: WebhookScope, id: number): Promise<void> {
  if (!(await deleteWebhook(db, id, scope))) throw notFound(scope);
}

/**
 * Switches one of the owner's webhooks on again after it was switched off for failing (upkeep.ts):
 * it delivers at once, from where it stopped, the events still kept. Harmless on one that is on.
 */
export async function enableMyWebhook(db: Db, scope: WebhookScope, id: number): Promise<Webhook> {
  const webhook = await enableWebhook(db, id, scope);
  if (!webhook) throw notFound(scope);
  return webhook;
}

/** The latest attempts of one of the owner's webhooks, newest first (at most `limit`). */
export async function myWebhookDeliveries(
  db: Db,
  scope: WebhookScope,
  id: number,
  limit: number,
): Promise<WebhookDelivery[]> {
  await myWebhook(db, scope, id);
  return listWebhookDeliveries(db, id, limit);
}
