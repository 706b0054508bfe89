import os from 'node:os';
import type { Catalogue } from '@earshot/catalogue';
import type { Config, Logger } from '@earshot/common';
import {
  type DeliveryOptions,
  deliverWebhook,
  httpWebhookSender,
  InProcessWebhookQueue,
  WebhookDispatcher,
  type WebhookQueue,
} from '@earshot/services';
import { Queue, Worker } from 'bullmq';
import { DEFAULT_QUEUE_PREFIX } from '../runners/bullmq.ts';

export const WEBHOOK_QUEUE = 'webhooks';

export interface WebhookDeliveriesOptions {
  config: Pick<Config, 'REDIS_URL'> &
    Partial<Pick<Config, 'WEBHOOK_ALLOW_PRIVATE' | 'WEBHOOK_TIMEOUT_MS' | 'WEBHOOK_DISABLE_AFTER_HOURS'>>;
  logger: Logger;
  catalogue: Catalogue;
  /** BullMQ key prefix (tests and benchmarks use their own). */
  queuePrefix?: string;
  /** How often the outbox is polled for due subscriptions (default 250 ms). */
  pollMs?: number;
  /** Subscriptions delivered at once in this process (default 8). */
  concurrency?: number;
  delivery?: Partial<DeliveryOptions>;
}

/** The webhooks' deliveries of one consuming process: the outbox poller and the queue it feeds. */
export interface WebhookDeliveries {
  readonly kind: 'in-process' | 'bullmq';
  start(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Without REDIS_URL, deliveries run in this process; with it, due subscriptions are queued in
 * BullMQ and any worker process delivers them (one job per subscription at a time, by job id; the
 * subscription's lease in the catalogue is what keeps its events in order).
 */
export function createWebhookDeliveries(options: WebhookDeliveriesOptions): WebhookDeliveries {
  const { config, logger, catalogue } = options;
  const delivery: DeliveryOptions = {
    sender: httpWebhookSender,
    allowPrivate: config.WEBHOOK_ALLOW_PRIVATE ?? false,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS ?? 5_000,
    disableAfterMs:
      config.WEBHOOK_DISABLE_AFTER_HOURS === undefined
        ? undefined
        : config.WEBHOOK_DISABLE_AFTER_HOURS * 3_600_000,
    ...options.delivery,
  };
  const deliver = (id: number) => deliverWebhook(catalogue.db, id, delivery);
  const concurrency = options.concurrency ?? 8;
  let dispatcher: WebhookDispatcher | undefined;
  const kind = config.REDIS_URL ? 'bullmq' : 'in-process';
  return {
    kind,
    async start() {
      // Made here, not before: a process that only serves the API opens no connection for them.
      const queue = config.REDIS_URL
        ? await bullmqWebhookQueue(config.REDIS_URL, options.queuePrefix, deliver, concurrency, logger)
        : new InProcessWebhookQueue(deliver, logger, concurrency);
      dispatcher = new WebhookDispatcher(catalogue.db, queue, logger, options.pollMs);
      dispatcher.start();
      logger.info({ queue: kind }, 'webhooks: deliveries started');
    },
    close: async () => dispatcher?.close(),
  };
}

async function bullmqWebhookQueue(
  redisUrl: string,
  queuePrefix: string | undefined,
  deliver: (id: number) => Promise<unknown>,
  concurrency: number,
  logger: Logger,
): Promise<WebhookQueue> {
  const connection = { url: redisUrl, maxRetriesPerRequest: null };
  const prefix = queuePrefix ?? DEFAULT_QUEUE_PREFIX;
  const bull = new Queue<{ webhookId: number }>(WEBHOOK_QUEUE, { connection, prefix });
  bull.on('error', (err) => logger.warn({ err }, 'webhook queue connection error'));
  const worker = new Worker<{ webhookId: number }>(WEBHOOK_QUEUE, (job) => deliver(job.data.webhookId), {
    connection,
    prefix,
    concurrency,
    name: `${os.hostname()}:${process.pid}`,
  });
  worker.on('error', (err) => logger.warn({ err }, 'webhook worker connection error'));
  await worker.waitUntilReady();
  return {
    async wake(webhookId) {
      // Not retried by BullMQ: the subscription's backoff lives in the catalogue.
      await bull.add(
        'deliver',
        { webhookId },
        { jobId: `webhook-${webhookId}`, removeOnComplete: true, removeOnFail: true, attempts: 1 },
      );
    },
    async close() {
      await worker.close();
      await bull.close();
    },
  };
}
