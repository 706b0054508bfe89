import {
  addComment,
  claimWebhook,
  dueWebhookIds,
  findWebhook,
  latestUserEventPosition,
  listWebhookDeliveries,
  readUserEvents,
} from '@earshot/catalogue';
import {
  insertSeedSound,
  insertSeedUser,
  testBackends,
  useRepositoryCatalogue,
} from '@earshot/catalogue/testing';
import { testService } from '@earshot/common/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookReceiver } from '../testing/webhook-receiver.ts';
import { type DeliveryOptions, deliverWebhook } from './delivery.ts';
import { httpWebhookSender } from './sender.ts';
import { enableMyWebhook, myWebhooks, registerWebhook } from './subscriptions.ts';
import { pruneEvents } from './upkeep.ts';

const postgresUrl = await testService('postgres');

/**
 * The webhooks' upkeep on both databases: a webhook whose every attempt failed for longer than the
 * rule allows is switched off, takes no turn, holds back no event, and delivers from where it
 * stopped once switched on; the retention removes only the events every switched-on webhook has
 * delivered, and the delivery attempts older than theirs.
 */
describe.each(testBackends(postgresUrl))('webhook upkeep on %s', (backend) => {
  const { db, unique } = useRepositoryCatalogue(backend, postgresUrl);
  const receiver = new WebhookReceiver();
  const options = (extra: Partial<DeliveryOptions> = {}): DeliveryOptions => ({
    sender: httpWebhookSender,
    allowPrivate: true,
    timeoutMs: 2_000,
    backoffMs: () => 0,
    ...extra,
  });

  beforeAll(() => receiver.start());
  afterAll(() => receiver.stop());

  async function ownerWithSound() {
    const owner = await insertSeedUser(db(), {
      username: unique('owner'),
      password_hash: null,
      avatar_path: null,
    });
    const fan = await insertSeedUser(db(), {
      username: unique('fan'),
      password_hash: null,
      avatar_path: null,
    });
    const sound = await insertSeedSound(db(), {
      user_id: owner,
      name: 'Kettle',
      license: 'Creative Commons 0',
      original_filename: 'kettle.wav',
      original_path: unique('o/kettle'),
      type: 'wav',
      processing_state: 'Processed',
      moderation_state: 'ok',
    });
    return { owner, fan, sound };
  }

  it('switches off a webhook that failed continuously for the allowed time, and on again', async () => {
    const { owner, fan, sound } = await ownerWithSound();
    const scope = { userId: owner, clientId: 'app-1' };
    const hook = await registerWebhook(db(), scope, { url: receiver.url }, { allowPrivate: true });
    receiver.secret = hook.secret;
    receiver.failWith = 503;
    await addComment(db(), { soundId: sound, userId: fan, comment: 'whistles' });
    const rule = options({ disableAfterMs: 400 });

    expect(await deliverWebhook(db(), hook.id, rule)).toBe('retrying');
    const failing = await findWebhook(db(), hook.id);
    expect(failing).toMatchObject({ failures: 1, disabledAt: null, lastError: 'the receiver answered 503' });
    expect(failing?.failingSince).toBeInstanceOf(Date);

    // Failing, but not yet for the allowed time: still on.
    expect(await deliverWebhook(db(), hook.id, rule)).toBe('retrying');
    expect((await findWebhook(db(), hook.id))?.disabledAt).toBeNull();

    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await deliverWebhook(db(), hook.id, rule)).toBe('disabled');
    const off = await findWebhook(db(), hook.id);
    expect(off?.disabledAt).toBeInstanceOf(Date);
    expect(off?.disabledReason).toMatch(/every delivery attempt failed for 400 ms/);
    expect(off?.failures).toBe(3);
    // Off: never due, never taken, and the attempts stay in its log.
    expect(await dueWebhookIds(db(), 1000)).not.toContain(hook.id);
    expect(await claimWebhook(db(), hook.id, 10_000)).toBeUndefined();
    expect(await deliverWebhook(db(), hook.id, rule)).toBe('busy');
    expect((await listWebhookDeliveries(db(), hook.id, 10)).map((d) => d.ok)).toEqual([false, false, false]);
    expect(receiver.refused).toBe(3);

    // Another credential cannot switch it on; its owner can, and it delivers what it missed.
    await expect(enableMyWebhook(db(), { userId: owner, clientId: 'app-2' }, hook.id)).rejects.toThrow(
      /No webhook with this id/,
    );
    receiver.failWith = undefined;
    const on = await enableMyWebhook(db(), scope, hook.id);
    expect(on).toMatchObject({ disabledAt: null, disabledReason: null, failures: 0, failingSince: null });
    expect(await dueWebhookIds(db(), 1000)).toContain(hook.id);
    const before = receiver.accepted.length;
    expect(await deliverWebhook(db(), hook.id, rule)).toBe('caught-up');
    expect(receiver.accepted.slice(before).map((d) => d.json.data.comment)).toEqual(['whistles']);
    expect(receiver.accepted[before].verified).toBe(true);
  });

  it('a success ends the run of failures: the time is counted from the first failure of a run', async () => {
    const { owner, fan, sound } = await ownerWithSound();
    const hook = await registerWebhook(
      db(),
      { userId: owner, clientId: 'app-1' },
      { url: receiver.url },
      {
        allowPrivate: true,
      },
    );
    const rule = options({ disableAfterMs: 300 });
    receiver.failWith = 500;
    await addComment(db(), { soundId: sound, userId: fan, comment: 'one' });
    expect(await deliverWebhook(db(), hook.id, rule)).toBe('retrying');
    await new Promise((resolve) => setTimeout(resolve, 400));
    receiver.failWith = undefined;
    expect(await deliverWebhook(db(), hook.id, rule)).toBe('caught-up');
    expect((await findWebhook(db(), hook.id))?.failingSince).toBeNull();
    receiver.failWith = 500;
    await addComment(db(), { soundId: sound, userId: fan, comment: 'two' });
    // A new run: its first failure does not switch it off, though the last run began long ago.
    expect(await deliverWebhook(db(), hook.id, rule)).toBe('retrying');
    expect((await findWebhook(db(), hook.id))?.disabledAt).toBeNull();
    receiver.failWith = undefined;
  });

  it('removes old events every switched-on webhook delivered, and old delivery attempts', async () => {
    const { owner, fan, sound } = await ownerWithSound();
    const start = await latestUserEventPosition(db());
    // Behind on comments: holds back the old comments it has not delivered, not the ratings.
    const behind = await registerWebhook(
      db(),
      { userId: owner, clientId: 'app-1' },
      { url: receiver.url, events: 'commented' },
      { allowPrivate: true },
    );
    // Switched off and behind on everything: holds back nothing.
    const off = await registerWebhook(
      db(),
      { userId: owner, clientId: 'app-2' },
      { url: receiver.url },
      {
        allowPrivate: true,
      },
    );
    await sql`update webhooks set disabled_at = now() where id = ${off.id}`.execute(db());
    await addComment(db(), { soundId: sound, userId: fan, comment: 'old comment' });
    await sql`insert into ratings (user_id, sound_id, rating) values (${fan}, ${sound}, 4)`.execute(db());
    await addComment(db(), { soundId: sound, userId: fan, comment: 'new comment' });
    const events = await readUserEvents(db(), { after: start, limit: 10, userId: owner });
    expect(events.map((e) => e.kind)).toEqual(['commented', 'rated', 'commented']);
    const [oldComment, oldRating, newComment] = events.map((e) => e.id);
    await sql`update user_events set created = now() - interval '40 days'
      where id in (${oldComment}, ${oldRating})`.execute(db());
    const retention = { eventsDays: 30, deliveriesDays: 14 };

    expect((await pruneEvents(db(), retention)).events).toBe(1);
    const kept = async () =>
      (await readUserEvents(db(), { after: start, limit: 10, userId: owner })).map((e) => e.id);
    expect(await kept()).toEqual([oldComment, newComment]);

    // Once delivered, the old comment goes; the new one stays within the retention.
    expect(await deliverWebhook(db(), behind.id, options())).toBe('caught-up');
    const log = await listWebhookDeliveries(db(), behind.id, 10);
    expect(log).toHaveLength(2);
    await sql`update webhook_deliveries set at = now() - interval '20 days'
      where webhook_id = ${behind.id} and event_id = ${oldComment}`.execute(db());
    expect(await pruneEvents(db(), retention)).toEqual({ events: 1, deliveries: 1 });
    expect(await kept()).toEqual([newComment]);
    expect((await listWebhookDeliveries(db(), behind.id, 10)).map((d) => d.eventId)).toEqual([newComment]);
    expect(await pruneEvents(db(), retention)).toEqual({ events: 0, deliveries: 0 });
    expect((await myWebhooks(db(), { userId: owner })).map((w) => w.id)).toEqual([behind.id, off.id]);
  });
});
