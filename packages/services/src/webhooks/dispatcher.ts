import { type Db, dueWebhookIds } from '@earshot/catalogue';
import type { Logger } from '@earshot/common';

/**
 * Where a due subscription goes to be delivered: run here (in-process) or queued for any worker
 * (BullMQ, in @earshot/workers). Waking one already waiting or running does nothing.
 */
export interface WebhookQueue {
  wake(webhookId: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Every `intervalMs`, wakes the subscriptions that have an event to deliver and are due. Polling
 * the outbox (one indexed query) finds every event whichever process committed it, and a
 * subscription whose retry time came; several processes may poll, the subscription's lease keeps
 * one deliverer at a time.
 */
export class WebhookDispatcher {
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly queue: WebhookQueue,
    private readonly logger: Logger,
    private readonly intervalMs = 250,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.ticking ??= this.tick().finally(() => {
        this.ticking = undefined;
      });
    }, this.intervalMs);
    this.timer.unref();
  }

  async tick(): Promise<void> {
    try {
      for (const id of await dueWebhookIds(this.db, 200)) await this.queue.wake(id);
    } catch (err) {
      this.logger.warn({ err }, 'webhooks: looking for due deliveries failed; trying again');
    }
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.ticking;
    await this.queue.close();
  }
}

/** Deliveries in this process, `concurrency` subscriptions at a time (the embedded, no-Redis mode). */
export class InProcessWebhookQueue implements WebhookQueue {
  private readonly waiting: number[] = [];
  private readonly known = new Set<number>();
  private readonly running = new Set<Promise<unknown>>();
  private closed = false;

  constructor(
    private readonly deliver: (webhookId: number) => Promise<unknown>,
    private readonly logger: Logger,
    private readonly concurrency = 4,
  ) {}

  async wake(webhookId: number): Promise<void> {
    if (this.closed || this.known.has(webhookId)) return;
    this.known.add(webhookId);
    this.waiting.push(webhookId);
    this.pump();
  }

  private pump(): void {
    while (this.running.size < this.concurrency && this.waiting.length > 0) {
      const id = this.waiting.shift() as number;
      const run: Promise<unknown> = this.deliver(id)
        .catch((err) => this.logger.warn({ err, webhookId: id }, 'webhooks: a delivery turn failed'))
        .finally(() => {
          this.running.delete(run);
          this.known.delete(id);
          if (!this.closed) this.pump();
        });
      this.running.add(run);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.waiting.length = 0;
    await Promise.all(this.running);
  }
}
