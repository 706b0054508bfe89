import { addComment, listWebhookDeliveries } from '@earshot/catalogue';
import {
  insertSeedSound,
  insertSeedUser,
  openTestCatalogue,
  setModerationState,
  setProcessingState,
  type TestCatalogue,
  testBackends,
} from '@earshot/catalogue/testing';
import { createLogger } from '@earshot/common';
import { testService } from '@earshot/common/testing';
import { registerWebhook } from '@earshot/services';
import { WebhookReceiver } from '@earshot/services/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropQueue, uniquePrefix, waitFor } from '../testing/wait.ts';
import { createWebhookDeliveries, WEBHOOK_QUEUE, type WebhookDeliveries } from './deliveries.ts';

/**
 * The deliveries as `earshot serve` (in-process) and `earshot worker` (BullMQ on the real Redis)
 * run them, on both databases: the pipeline's own state changes reach the receiver in order and
 * signed; two deliverers on one outbox deliver each event once, in order, through a receiver that
 * is down for a while; a target that is not public is refused at delivery unless allowed.
 */

const postgresUrl = await testService('postgres');
const redisUrl = await testService('redis');
const logger = createLogger('silent');
const queues = redisUrl ? (['in-process', 'bullmq'] as const) : (['in-process'] as const);
const cases = testBackends(postgresUrl).flatMap((backend) =>
  queues.map((queue) => [backend, queue] as const),
);

describe.each(cases)('webhook deliveries on %s, %s', (backend, queue) => {
  let t: TestCatalogue;
  const receiver = new WebhookReceiver();
  const prefix = uniquePrefix('webhooks');
  const running: WebhookDeliveries[] = [];
  let owner: number;
  let fan: number;
  let sound: number;

  const deliveries = async (allowPrivate = true) => {
    const d = createWebhookDeliveries({
      config: {
        REDIS_URL: queue === 'bullmq' ? redisUrl : undefined,
        WEBHOOK_ALLOW_PRIVATE: allowPrivate,
        WEBHOOK_TIMEOUT_MS: 2_000,
      },
      logger,
      catalogue: t.catalogue,
      queuePrefix: prefix,
      pollMs: 50,
      delivery: { backoffMs: () => 100 },
    });
    await d.start();
    running.push(d);
    return d;
  };

  beforeAll(async () => {
    t = await openTestCatalogue(backend, { postgresUrl });
    const db = t.catalogue.db;
    owner = await insertSeedUser(db, { username: 'owner', password_hash: null, avatar_path: null });
    fan = await insertSeedUser(db, { username: 'fan', password_hash: null, avatar_path: null });
    sound = await insertSeedSound(db, {
      user_id: owner,
      name: 'Door slam',
      license: 'Creative Commons 0',
      original_filename: 'door.wav',
      original_path: 'x/door.wav',
      type: 'wav',
      processing_state: 'Processing',
      moderation_state: 'pending_moderation',
    });
    await receiver.start();
  }, 120_000);
  afterAll(async () => {
    for (const d of running) await d.close();
    await receiver.stop();
    if (queue === 'bullmq') await dropQueue(redisUrl as string, prefix, WEBHOOK_QUEUE);
    await t?.cleanup();
  });

  it('delivers processed, approved, failed and commented, in order and signed', async () => {
    const db = t.catalogue.db;
    const hook = await registerWebhook(
      db,
      { userId: owner, clientId: 'app-1' },
      { url: receiver.url },
      { allowPrivate: true },
    );
    receiver.secret = hook.secret;
    await deliveries();
    await setProcessingState(db, sound, { state: 'Processed' });
    await setModerationState(db, sound, 'ok', fan);
    await setProcessingState(db, sound, { state: 'Failed', error: 'decoder gave up' });
    await addComment(db, { soundId: sound, userId: fan, comment: 'loud!' });
    const got = await receiver.waitFor(4);
    expect(got.map((d) => d.json.type)).toEqual(['processed', 'approved', 'processing_failed', 'commented']);
    expect(got.every((d) => d.verified)).toBe(true);
    expect(got[0].json.data).toEqual({ sound_name: 'Door slam' });
    expect(got[2].json.data).toMatchObject({ error: 'decoder gave up' });
    expect(got[3].json.data).toMatchObject({ comment: 'loud!', username: 'fan' });
  });

  it('two deliverers and a receiver down for a while: every event once, in order', async () => {
    await deliveries();
    const before = receiver.accepted.length;
    await receiver.stop();
    const texts = Array.from({ length: 30 }, (_, i) => `burst ${i}`);
    await Promise.all(
      texts
        .slice(0, 10)
        .map((comment) => addComment(t.catalogue.db, { soundId: sound, userId: fan, comment })),
    );
    for (const comment of texts.slice(10))
      await addComment(t.catalogue.db, { soundId: sound, userId: fan, comment });
    await new Promise((resolve) => setTimeout(resolve, 600));
    await receiver.start();
    const got = (await receiver.waitFor(before + texts.length)).slice(before);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.accepted.length - before).toBe(texts.length);
    expect(new Set(got.map((d) => d.json.data.comment))).toEqual(new Set(texts));
    expect(texts.slice(10)).toEqual(
      got.map((d) => d.json.data.comment).filter((c) => texts.slice(10).includes(c as string)),
    );
    const ids = got.map((d) => BigInt(d.json.id));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('refuses, at delivery, a target that is not public unless the operator allows it', async () => {
    for (const d of running.splice(0)) await d.close();
    const db = t.catalogue.db;
    const hook = await registerWebhook(
      db,
      { userId: owner, clientId: 'app-2' },
      { url: receiver.url, events: 'commented' },
      { allowPrivate: true },
    );
    await deliveries(false);
    const before = receiver.accepted.length;
    await addComment(db, { soundId: sound, userId: fan, comment: 'to nowhere' });
    const log = await waitFor(async () => {
      const attempts = await listWebhookDeliveries(db, hook.id, 10);
      return attempts.length > 0 ? attempts : undefined;
    });
    expect(log[0]).toMatchObject({ ok: false, status: null });
    expect(log[0].error).toMatch(/not a public address/);
    expect(receiver.accepted.length).toBe(before);
  });
});
