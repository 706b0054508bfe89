// Test helpers of @earshot/services, imported as `@earshot/services/testing`; never re-exported from
// the production index.ts.
export { recordingQueue } from './processing-queue.ts';
export { type ReceivedDelivery, WebhookReceiver } from './webhook-receiver.ts';
