import { type Db, eventResume, latestUserEventPosition, readUserEvents } from '@earshot/catalogue';
import {
  enableMyWebhook,
  myWebhook,
  myWebhookDeliveries,
  myWebhooks,
  registerWebhook,
  removeMyWebhook,
} from '@earshot/services';
import type { UserEventsReader, WebhookStore } from '../application/ports.ts';

/** The outbox's reads, never cached. */
export function userEventsReader(db: Db): UserEventsReader {
  return {
    after: (options) => readUserEvents(db, options),
    latest: () => latestUserEventPosition(db),
    resume: (options) => eventResume(db, options),
  };
}

/** The webhooks' use cases on this catalogue; `allowPrivate` is WEBHOOK_ALLOW_PRIVATE. */
export function webhookStore(db: Db, allowPrivate: boolean): WebhookStore {
  return {
    register: (owner, request) => registerWebhook(db, owner, request, { allowPrivate }),
    list: (owner) => myWebhooks(db, owner),
    get: (owner, id) => myWebhook(db, owner, id),
    remove: (owner, id) => removeMyWebhook(db, owner, id),
    enable: (owner, id) => enableMyWebhook(db, owner, id),
    deliveries: (owner, id, limit) => myWebhookDeliveries(db, owner, id, limit),
  };
}
