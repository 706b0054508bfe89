export {
  DEFAULT_DISABLE_AFTER_MS,
  type DeliveryOptions,
  type DeliveryTurn,
  deliverWebhook,
  exponentialBackoff,
} from './delivery.ts';
export { InProcessWebhookQueue, WebhookDispatcher, type WebhookQueue } from './dispatcher.ts';
export { type EventBody, eventBody } from './event-body.ts';
export { httpWebhookSender, type WebhookResponse, type WebhookSender } from './sender.ts';
export { SIGNATURE_HEADER, signWebhookBody, verifyWebhookSignature } from './signature.ts';
export {
  enableMyWebhook,
  myWebhook,
  myWebhookDeliveries,
  myWebhooks,
  parseEventKinds,
  registerWebhook,
  removeMyWebhook,
  WEB_CLIENT_ID,
  WEBHOOKS_PER_CREDENTIAL,
  type WebhookOwner,
} from './subscriptions.ts';
export {
  isPublicAddress,
  parseWebhookUrl,
  resolveWebhookTarget,
  type WebhookTarget,
  WebhookTargetError,
} from './targets.ts';
export { type EventRetention, pruneEvents } from './upkeep.ts';
