import SwaggerParser from '@apidevtools/swagger-parser';
import {
  addComment,
  bookmarkSound,
  decodeEventPosition,
  encodeEventPosition,
  latestUserEventPosition,
  pruneUserEvents,
  rateSound,
  readUserEvents,
} from '@earshot/catalogue';
import { createTestDatabase, insertSeedUser, setModerationState } from '@earshot/catalogue/testing';
import { createLogger } from '@earshot/common';
import { testService } from '@earshot/common/testing';
import {
  createApiCredential,
  deliverWebhook,
  httpWebhookSender,
  InProcessWebhookQueue,
  WebhookDispatcher,
} from '@earshot/services';
import { WebhookReceiver } from '@earshot/services/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';

/**
 * Events about a user's own sounds (docs/api.md "Events"): webhooks registered per credential and
 * delivered signed, in order, through a receiver that goes down and comes back; the same events as
 * a server-sent event stream resumed with Last-Event-ID; URLs on private addresses refused. A real
 * server, a real receiver on 127.0.0.1 and the in-process deliveries, on both databases.
 */

const postgresUrl = await testService('postgres');
const backends = postgresUrl ? ['pglite', 'postgres'] : ['pglite'];

type Json = Record<string, any>;

async function startOn(backend: string, env: Record<string, string>) {
  const database = backend === 'postgres' ? await createTestDatabase(postgresUrl as string) : undefined;
  const server = await startTestServer({ ...(database ? { DATABASE_URL: database.url } : {}), ...env });
  return {
    server,
    async stop() {
      await server.stop();
      await database?.drop();
    },
  };
}

async function call(
  s: TestServer,
  method: string,
  path: string,
  options: { key?: string | null; form?: Record<string, string> } = {},
): Promise<{ status: number; body: Json }> {
  const key = options.key === undefined ? s.seeded.apiKey : options.key;
  const res = await fetch(`${s.origin}${path}`, {
    method,
    headers: {
      ...(key ? { Authorization: `Token ${key}` } : {}),
      ...(options.form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
    },
    body: options.form ? new URLSearchParams(options.form).toString() : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
}

describe.each(backends)('webhook URLs on %s', (backend) => {
  let s: TestServer;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ server: s, stop } = await startOn(backend, {}));
  }, 180_000);
  afterAll(() => stop?.());

  it.each([
    ['http://127.0.0.1:8080/hook', /127\.0\.0\.1, not a public address/],
    ['http://localhost/hook', /not a public address/],
    ['http://169.254.169.254/latest/meta-data/', /not a public address/],
    ['http://10.1.2.3/', /not a public address/],
    ['http://192.168.1.1/', /not a public address/],
    ['http://[::1]:9000/', /not a public address/],
    ['http://[::ffff:127.0.0.1]/', /not a public address/],
    ['http://[fd00::1]/', /not a public address/],
    ['ftp://example.org/', /only http and https/],
    ['http://user:pw@example.org/', /user name or password/],
    ['not a url', /not an absolute URL/],
  ])('refuses %s with a 400 that says why', async (url, detail) => {
    const res = await call(s, 'POST', '/apiv2/me/webhooks/', { form: { url } });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(detail);
    expect((await call(s, 'GET', '/apiv2/me/webhooks/')).body.webhooks).toEqual([]);
  });

  it('is described in the OpenAPI document, each operation marked as earshot’s own', async () => {
    const doc = (await (await fetch(`${s.origin}/apiv2/openapi.json`)).json()) as Json;
    await SwaggerParser.validate(structuredClone(doc) as never);
    const ops = [
      doc.paths['/apiv2/me/webhooks/'].post,
      doc.paths['/apiv2/me/webhooks/'].get,
      doc.paths['/apiv2/me/webhooks/{webhook_id}/'].get,
      doc.paths['/apiv2/me/webhooks/{webhook_id}/'].delete,
      doc.paths['/apiv2/me/webhooks/{webhook_id}/deliveries/'].get,
      doc.paths['/apiv2/me/events/'].get,
    ];
    for (const op of ops) expect(op.summary).toMatch(/^earshot: /);
    expect(Object.keys(doc.paths['/apiv2/me/events/'].get.responses['200'].content)).toEqual([
      'text/event-stream',
    ]);
    expect(ops[0].parameters.map((p: Json) => p.name)).toEqual(expect.arrayContaining(['url', 'events']));
  });

  it('refuses unknown kinds, a missing url and a caller without credentials', async () => {
    const bad = await call(s, 'POST', '/apiv2/me/webhooks/', {
      form: { url: 'http://93.184.215.14/', events: 'commented,downloaded' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toMatch(/events: unknown downloaded/);
    const none = await call(s, 'POST', '/apiv2/me/webhooks/', { form: {} });
    expect(none.status).toBe(400);
    expect(none.body.detail).toMatch(/url: required/);
    const anonymous = await call(s, 'GET', '/apiv2/me/webhooks/', { key: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.detail).toBeTruthy();
  });
});

describe.each(backends)('webhooks and the event stream on %s', (backend) => {
  let s: TestServer;
  let stop: () => Promise<void>;
  let dispatcher: WebhookDispatcher;
  const receiver = new WebhookReceiver();
  let bobSound: number;
  let aliceSound: number;
  let alice: number;
  let bob: number;
  let carol: number;

  beforeAll(async () => {
    ({ server: s, stop } = await startOn(backend, { WEBHOOK_ALLOW_PRIVATE: 'true' }));
    await receiver.start();
    const db = s.catalogue.db;
    alice = s.seeded.userIds.alice;
    bob = s.seeded.userIds.bob;
    const soundOf = async (user: number) =>
      (
        await db
          .selectFrom('sounds')
          .select('id')
          .where('user_id', '=', user)
          .orderBy('id')
          .executeTakeFirstOrThrow()
      ).id;
    bobSound = await soundOf(bob);
    await createApiCredential(db, {
      username: 'carol',
      name: 'Carol app',
      redirectUri: 'http://127.0.0.1/cb',
    });
    carol = (
      await db.selectFrom('users').select('id').where('username', '=', 'carol').executeTakeFirstOrThrow()
    ).id;
    aliceSound = await soundOf(alice);
    const logger = createLogger('silent');
    const queue = new InProcessWebhookQueue(
      (id) =>
        deliverWebhook(db, id, {
          sender: httpWebhookSender,
          allowPrivate: true,
          timeoutMs: 2_000,
          backoffMs: () => 150,
          disableAfterMs,
        }),
      logger,
    );
    dispatcher = new WebhookDispatcher(db, queue, logger, 50);
    dispatcher.start();
  }, 180_000);
  afterAll(async () => {
    await dispatcher?.close();
    await receiver.stop();
    await stop?.();
  });

  /** The switching-off rule of the deliveries (the default, 72 h, unless a test shortens it). */
  let disableAfterMs: number | undefined;

  const comment = (text: string, soundId = bobSound) =>
    addComment(s.catalogue.db, { soundId, userId: alice, comment: text });

  it('registers a webhook for this credential, shows its secret once, and keeps it from others', async () => {
    const created = await call(s, 'POST', '/apiv2/me/webhooks/', {
      form: { url: receiver.url, events: 'commented,rated,bookmarked,approved,rejected' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      url: receiver.url,
      events: ['commented', 'rated', 'bookmarked', 'approved', 'rejected'],
      failures: 0,
      deliveries: `${s.origin}/apiv2/me/webhooks/${created.body.id}/deliveries/`,
    });
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    receiver.secret = created.body.secret;
    const listed = await call(s, 'GET', '/apiv2/me/webhooks/');
    expect(listed.body.webhooks).toHaveLength(1);
    expect(listed.body.webhooks[0].secret).toBeUndefined();
    // Another credential, even of the same user, neither sees nor deletes it.
    const other = await createApiCredential(s.catalogue.db, {
      username: 'bob',
      name: 'Other app',
      redirectUri: 'http://127.0.0.1/cb',
      level: 'unlimited',
    });
    expect((await call(s, 'GET', '/apiv2/me/webhooks/', { key: other.client_secret })).body.webhooks).toEqual(
      [],
    );
    const foreign = await call(s, 'DELETE', `/apiv2/me/webhooks/${created.body.id}/`, {
      key: other.client_secret,
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body.detail).toMatch(/No webhook/);
  });

  it("delivers the events of the user's own sounds, signed, in order, each with its id", async () => {
    await comment('first!');
    await rateSound(s.catalogue.db, { soundId: bobSound, userId: alice, rating: 4 });
    await bookmarkSound(s.catalogue.db, { userId: alice, soundId: bobSound, name: 'kick' });
    await comment('not bob’s sound', aliceSound);
    await setModerationState(s.catalogue.db, bobSound, 'rejected', alice);
    const got = await receiver.waitFor(4);
    expect(got.map((d) => d.json.type)).toEqual(['commented', 'rated', 'bookmarked', 'rejected']);
    for (const d of got) {
      expect(d.verified).toBe(true);
      expect(d.headers['earshot-event-id']).toBe(d.json.id);
      expect(d.headers['earshot-event']).toBe(d.json.type);
      expect(d.json.sound_id).toBe(bobSound);
    }
    expect(got[0].json.data).toMatchObject({ comment: 'first!', username: 'alice' });
    expect(got[1].json.data).toMatchObject({ rating: 4, username: 'alice' });
    // A signature made with another secret, or for another body, does not verify.
    const { verifyWebhookSignature } = await import('@earshot/services');
    const header = got[0].headers['earshot-signature'] as string;
    expect(verifyWebhookSignature('whsec_other', got[0].body, header)).toBe(false);
    expect(verifyWebhookSignature(receiver.secret as string, `${got[0].body} `, header)).toBe(false);
    expect(
      verifyWebhookSignature(receiver.secret as string, got[0].body, header, {
        nowSeconds: Math.floor(Date.now() / 1000) + 600,
      }),
    ).toBe(false);
  });

  it('retries a failing receiver with backoff and logs each attempt', async () => {
    receiver.failWith = 503;
    const before = receiver.accepted.length;
    await comment('while it fails');
    await expect.poll(() => receiver.refused, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
    receiver.failWith = undefined;
    const got = await receiver.waitFor(before + 1);
    const last = got[got.length - 1];
    expect(last.json.data).toMatchObject({ comment: 'while it fails' });
    expect(Number(last.headers['earshot-delivery-attempt'])).toBeGreaterThanOrEqual(3);
    const [hook] = (await call(s, 'GET', '/apiv2/me/webhooks/')).body.webhooks;
    // The success is logged once the receiver's answer is in, a moment after the receiver saw it.
    const attemptsOf = async () =>
      (await call(s, 'GET', `/apiv2/me/webhooks/${hook.id}/deliveries/?limit=1000`)).body.deliveries.filter(
        (d: Json) => d.event_id === last.json.id,
      ) as Json[];
    await expect.poll(async () => (await attemptsOf())[0]?.ok).toBe(true);
    const attempts = await attemptsOf();
    expect(attempts[0]).toMatchObject({ ok: true, status: 204, error: null });
    expect(attempts.slice(1).every((d: Json) => d.ok === false && d.status === 503)).toBe(true);
    expect(attempts.length).toBeGreaterThanOrEqual(3);
  });

  it('a receiver that is down gets every event, in order and once each, when it comes back', async () => {
    const before = receiver.accepted.length;
    await receiver.stop();
    const texts = Array.from({ length: 12 }, (_, i) => `down ${i}`);
    for (const text of texts) await comment(text);
    const [hook] = (await call(s, 'GET', '/apiv2/me/webhooks/')).body.webhooks;
    await expect
      .poll(async () => (await call(s, 'GET', `/apiv2/me/webhooks/${hook.id}/`)).body.failures, {
        timeout: 15_000,
      })
      .toBeGreaterThanOrEqual(2);
    const down = await call(s, 'GET', `/apiv2/me/webhooks/${hook.id}/`);
    expect(down.body.last_error).toMatch(/ECONNREFUSED/);
    expect(down.body.next_attempt).not.toBeNull();
    await receiver.start();
    const got = (await receiver.waitFor(before + texts.length)).slice(before);
    expect(got.map((d) => d.json.data.comment)).toEqual(texts);
    expect(new Set(got.map((d) => d.json.id)).size).toBe(texts.length);
    const ids = got.map((d) => BigInt(d.json.id));
    expect(ids).toEqual([...ids].sort((a, b) => (a < b ? -1 : 1)));
    await expect
      .poll(async () => (await call(s, 'GET', `/apiv2/me/webhooks/${hook.id}/`)).body.failures)
      .toBe(0);
  });

  it('switches off a webhook that kept failing, shows it, and its credential switches it on', async () => {
    const [hook] = (await call(s, 'GET', '/apiv2/me/webhooks/')).body.webhooks;
    expect(hook).toMatchObject({ active: true, disabled_at: null, disabled_reason: null });
    disableAfterMs = 400;
    receiver.failWith = 500;
    const before = receiver.accepted.length;
    await comment('into the void');
    const read = async () => (await call(s, 'GET', `/apiv2/me/webhooks/${hook.id}/`)).body;
    await expect.poll(async () => (await read()).active, { timeout: 15_000 }).toBe(false);
    const off = await read();
    expect(off.disabled_at).toEqual(expect.any(String));
    expect(off.disabled_reason).toMatch(/every delivery attempt failed for/);
    expect(off.failures).toBeGreaterThanOrEqual(2);
    // Off: no more attempts.
    const refused = receiver.refused;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.refused).toBe(refused);

    disableAfterMs = undefined;
    receiver.failWith = undefined;
    const other = await createApiCredential(s.catalogue.db, {
      username: 'bob',
      name: 'Third app',
      redirectUri: 'http://127.0.0.1/cb',
      level: 'unlimited',
    });
    const foreign = await call(s, 'POST', `/apiv2/me/webhooks/${hook.id}/enable/`, {
      key: other.client_secret,
    });
    expect(foreign.status).toBe(404);
    const on = await call(s, 'POST', `/apiv2/me/webhooks/${hook.id}/enable/`);
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({ id: hook.id, active: true, disabled_at: null, failures: 0 });
    const got = await receiver.waitFor(before + 1);
    expect(got[before].json.data).toMatchObject({ comment: 'into the void' });
  });

  it('streams the same events as server-sent events, resumable with Last-Event-ID', async () => {
    const first = await openStream(s, {});
    await comment('streamed 1');
    await bookmarkSound(s.catalogue.db, {
      userId: carol,
      soundId: bobSound,
      name: 'kick',
      category: 'drums',
    });
    const two = await first.next(2);
    first.close();
    expect(two.map((e) => e.event)).toEqual(['commented', 'bookmarked']);
    expect(JSON.parse(two[0].data)).toMatchObject({ type: 'commented', data: { comment: 'streamed 1' } });
    // Missed while away: exactly these, after the last id seen.
    await comment('missed 1');
    await comment('missed 2');
    await comment('someone else’s', aliceSound);
    const resumed = await openStream(s, { 'Last-Event-ID': two[1].id });
    const missed = await resumed.next(2);
    expect(missed.map((e) => JSON.parse(e.data).data.comment)).toEqual(['missed 1', 'missed 2']);
    await comment('live again');
    const [live] = await resumed.next(1);
    expect(JSON.parse(live.data).data.comment).toBe('live again');
    resumed.close();
    // Filtered by kind.
    const ratings = await openStream(s, {}, '?events=rated');
    await comment('not a rating');
    await rateSound(s.catalogue.db, { soundId: bobSound, userId: carol, rating: 5 });
    const [rated] = await ratings.next(1);
    expect(JSON.parse(rated.data)).toMatchObject({ type: 'rated', sound_id: bobSound, data: { rating: 5 } });
    ratings.close();
  });

  it('refuses a Last-Event-ID it did not hand out, with a 400', async () => {
    const res = await fetch(`${s.origin}/apiv2/me/events/`, {
      headers: { Authorization: `Token ${s.seeded.apiKey}`, 'Last-Event-ID': 'nonsense' },
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).detail).toMatch(/Last-Event-ID: not an event id/);
    // HEAD answers the stream's headers and ends.
    const head = await fetch(`${s.origin}/apiv2/me/events/`, {
      method: 'HEAD',
      headers: { Authorization: `Token ${s.seeded.apiKey}` },
    });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/^text\/event-stream/);
  });

  it('deletes a webhook: 204, then 404', async () => {
    const [hook] = (await call(s, 'GET', '/apiv2/me/webhooks/')).body.webhooks;
    expect((await call(s, 'DELETE', `/apiv2/me/webhooks/${hook.id}/`)).status).toBe(204);
    const gone = await call(s, 'GET', `/apiv2/me/webhooks/${hook.id}/`);
    expect(gone.status).toBe(404);
    expect(gone.body.detail).toBeTruthy();
  });

  it('tells a stream resumed from before removed events that it missed them, then goes on with the kept ones', async () => {
    const db = s.catalogue.db;
    const watching = await openStream(s, {});
    await comment('before the gap');
    const [seen] = await watching.next(1);
    watching.close();
    await comment('lost 1');
    await comment('lost 2');
    await comment('kept 1');
    const [lost1, lost2, kept] = await readUserEvents(db, {
      after: decodeEventPosition(seen.id, 'id'),
      limit: 10,
      userId: bob,
    });
    expect(kept.data).toMatchObject({ comment: 'kept 1' });
    // The retention removes the two (no switched-on webhook holds them back).
    await sql`update webhooks set disabled_at = now(), disabled_reason = 'test'`.execute(db);
    await sql`update user_events set created = now() - interval '40 days'
      where id in (${lost1.id}::bigint, ${lost2.id}::bigint)`.execute(db);
    expect(await pruneUserEvents(db, new Date(Date.now() - 86_400_000))).toBe(2);

    for (const [headers, query] of [
      [{ 'Last-Event-ID': seen.id }, ''],
      [{}, `?last_event_id=${seen.id}`],
    ] as const) {
      const resumed = await openStream(s, headers, query);
      const [missed, next] = await resumed.next(2);
      resumed.close();
      expect(missed.event).toBe('missed');
      expect(missed.id, 'the notice moves no Last-Event-ID').toBeUndefined();
      expect(JSON.parse(missed.data)).toEqual({
        type: 'missed',
        detail: expect.stringMatching(/^Events after this Last-Event-ID were removed/),
        last_event_id: seen.id,
        removed_through: encodeEventPosition(lost2.position),
        oldest_event_id: encodeEventPosition(kept.position),
        resync: {
          sounds: `${s.origin}/apiv2/users/bob/sounds/?fields=id,name,num_comments,num_ratings,avg_rating,num_downloads`,
          pending_uploads: `${s.origin}/apiv2/sounds/pending_uploads/`,
        },
      });
      expect(next).toMatchObject({ event: 'commented', id: encodeEventPosition(kept.position) });
    }

    // Resumed after the gap, or following only kinds none of which went: no notice.
    const after = await openStream(s, { 'Last-Event-ID': encodeEventPosition(kept.position) });
    await comment('after the gap');
    const [plain] = await after.next(1);
    after.close();
    expect(plain.event).toBe('commented');
    expect(JSON.parse(plain.data).data.comment).toBe('after the gap');
    const ratings = await openStream(s, { 'Last-Event-ID': seen.id }, '?events=rated');
    const rater = await insertSeedUser(db, { username: 'dora', password_hash: null, avatar_path: null });
    await rateSound(db, { soundId: bobSound, userId: rater, rating: 4 });
    const [rated] = await ratings.next(1);
    ratings.close();
    expect(rated.event).toBe('rated');
  });

  it('answers an id no event had, or one of another server, with a 400 that says what to do', async () => {
    const latest = await latestUserEventPosition(s.catalogue.db);
    const elsewhere = encodeEventPosition({ seq: String(BigInt(latest.seq) + 1000n), id: latest.id });
    const ask = (headers: Record<string, string>, query = '') =>
      problem(`/apiv2/me/events/${query}`, headers);
    for (const [answer, where] of [
      [await ask({ 'Last-Event-ID': elsewhere }), 'Last-Event-ID'],
      [await ask({}, `?last_event_id=${elsewhere}`), 'last_event_id'],
    ] as const) {
      expect(answer.status).toBe(400);
      expect(answer.detail).toBe(
        `${where}: no event with this id was written here (an id of another server, or of a database restored since?); connect again without it to follow from now, after reading afresh what you keep`,
      );
    }
    const malformed = await ask({}, '?last_event_id=nonsense');
    expect(malformed).toEqual({
      status: 400,
      detail: 'last_event_id: not an event id this server handed out',
    });
  });

  /** A request whose answer is not a stream: its status and `detail`. */
  async function problem(path: string, headers: Record<string, string>) {
    const res = await fetch(`${s.origin}${path}`, {
      headers: { Authorization: `Token ${s.seeded.apiKey}`, ...headers },
    });
    return { status: res.status, detail: ((await res.json()) as Json).detail as string };
  }
});

interface StreamEvent {
  id: string;
  event: string;
  data: string;
}

/** An open `/apiv2/me/events/` stream read as its events arrive. */
async function openStream(s: TestServer, headers: Record<string, string>, query = '') {
  const controller = new AbortController();
  const res = await fetch(`${s.origin}/apiv2/me/events/${query}`, {
    headers: { Authorization: `Token ${s.seeded.apiKey}`, ...headers },
    signal: controller.signal,
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const events: StreamEvent[] = [];
  let taken = 0;
  return {
    async next(count: number, timeoutMs = 15_000): Promise<StreamEvent[]> {
      const deadline = Date.now() + timeoutMs;
      while (events.length - taken < count) {
        if (Date.now() > deadline) throw new Error(`${events.length - taken} of ${count} events`);
        const { value, done } = await reader.read();
        if (done) throw new Error('the stream ended');
        buffer += decoder.decode(value, { stream: true });
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields = Object.fromEntries(
            block
              .split('\n')
              .filter((line) => line && !line.startsWith(':'))
              .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]),
          );
          if (fields.data !== undefined) events.push(fields as unknown as StreamEvent);
          end = buffer.indexOf('\n\n');
        }
      }
      const out = events.slice(taken, taken + count);
      taken += count;
      return out;
    },
    close: () => controller.abort(),
  };
}
