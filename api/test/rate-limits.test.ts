import { randomBytes } from 'node:crypto';
import { testService } from '@earshot/common/testing';
import { createApiCredential } from '@earshot/services';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openRateLimiter } from '../src/framework/rate-limits/open.ts';
import { type RunningServer, startServer } from '../src/server.ts';
import { startTestServer, type TestServer } from './support/server.ts';

/**
 * The contract's rate limits, black-box over HTTP on the real server: counters in this process's
 * memory and in a real Redis. The limiter's clock is the test's, so windows pass without waiting.
 */

const redisUrl = await testService('redis');
const MINUTE = 60_000;
/** A minute bucket starts here, 10 s before the clock's first reading (and a day bucket too). */
const DAY_START = Date.UTC(2031, 0, 7);

const backends = [
  { name: 'memory', env: {} as Record<string, string> },
  ...(redisUrl ? [{ name: 'Redis', env: { REDIS_URL: redisUrl } }] : []),
];

describe.each(backends)('rate limits per credential, counters in $name', ({ env }) => {
  const keyPrefix = `earshot:test:rl:${randomBytes(6).toString('hex')}`;
  const clock = { t: DAY_START + 10_000 };
  let s: TestServer;
  let soundPath: string;
  beforeAll(async () => {
    s = await startTestServer(env, { rateLimits: { now: () => clock.t, keyPrefix } });
    soundPath = `/apiv2/sounds/${s.seeded.ids.bd_808}/`;
  });
  afterAll(async () => {
    await s?.stop();
    if (env.REDIS_URL) await deleteKeys(env.REDIS_URL, keyPrefix);
  });
  beforeEach(() => {
    clock.t = DAY_START + 10_000;
  });

  let apps = 0;
  async function key(level: string): Promise<{ key: string; clientId: string }> {
    const created = await createApiCredential(s.catalogue.db, {
      username: 'limited',
      name: `app ${++apps}`,
      redirectUri: 'http://127.0.0.1/cb',
      level,
    });
    return { key: created.client_secret, clientId: created.client_id };
  }
  const get = (path: string, apiKey: string, origin = s.origin) =>
    fetch(`${origin}${path}`, { headers: { Authorization: `Token ${apiKey}` } });
  async function statuses(n: number, path: string, apiKey: string, origin = s.origin): Promise<number[]> {
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const res = await get(path, apiKey, origin);
      await res.arrayBuffer();
      out.push(res.status);
    }
    return out;
  }

  it('shows the credential its windows at /apiv2/me/limits/, counting the question as one standard request', async () => {
    const { key: k } = await key('standard');
    expect((await statuses(9, '/apiv2/users/alice/', k)).every((code) => code === 200)).toBe(true);
    const res = await get('/apiv2/me/limits/', k);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-remaining')).toBe('50');
    // 10 s into both buckets: what was counted leaves the minute in 110 s, the day in 2 days less 10 s.
    expect(await res.json()).toEqual({
      level: 'standard',
      standard: {
        minute: { limit: 60, used: 10, remaining: 50, reset: 110 },
        day: { limit: 2000, used: 10, remaining: 1990, reset: 172_790 },
      },
      strict: {
        minute: { limit: 30, used: 0, remaining: 30, reset: 0 },
        day: { limit: 500, used: 0, remaining: 500, reset: 0 },
      },
    });
    // Asking took nothing of the strict windows (nor more than one standard request).
    const again = (await (await get('/apiv2/me/limits/', k)).json()) as Record<string, any>;
    expect(again.strict.minute.used).toBe(0);
    expect(again.standard.minute.used).toBe(11);
    const unlimited = await get('/apiv2/me/limits/', (await key('unlimited')).key);
    expect(await unlimited.json()).toEqual({
      level: 'unlimited',
      standard: 'unlimited',
      strict: 'unlimited',
    });
  });

  it('lets the 60th request of a minute through and answers the 61st with a 429 naming the limit', async () => {
    const { key: k } = await key('standard');
    // The sound instance is answered by the hot path once rendered; the user by the application:
    // both count against the same numbers.
    const first = await statuses(59, soundPath, k);
    expect(first.every((code) => code === 200)).toBe(true);
    const sixtieth = await get('/apiv2/users/alice/', k);
    expect(sixtieth.status).toBe(200);
    expect(sixtieth.headers.get('x-ratelimit-limit')).toBe('60');
    expect(sixtieth.headers.get('x-ratelimit-remaining')).toBe('0');
    const throttled = await get('/apiv2/users/alice/', k);
    expect(throttled.status).toBe(429);
    expect(await throttled.json()).toEqual({
      detail: 'Request was throttled because of exceeding a request limit rate (60/minute)',
    });
    // 10 s into the bucket: the 60 requests count fully for 50 s more, then fade; one has gone by
    // 1/60 of the next bucket.
    expect(throttled.headers.get('retry-after')).toBe('51');
    expect(throttled.headers.get('x-ratelimit-limit')).toBe('60');
    expect(throttled.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(throttled.headers.get('x-ratelimit-reset')).toBe('110');
    const hot = await get(soundPath, k);
    expect(hot.status).toBe(429);
    expect(hot.headers.get('retry-after')).toBe('51');
    expect(((await hot.json()) as { detail: string }).detail).toContain('(60/minute)');
  });

  it('slides the minute window: half a minute after the next minute began, half the quota is back', async () => {
    const { key: k } = await key('standard');
    expect((await statuses(61, soundPath, k)).filter((c) => c === 429)).toHaveLength(1);
    clock.t += 80_000; // 30 s into the next bucket: the first one's 60 weigh 30
    const again = await statuses(31, soundPath, k);
    expect(again.slice(0, 30).every((c) => c === 200)).toBe(true);
    expect(again[30]).toBe(429);
    clock.t += 2 * MINUTE; // both buckets have slid out
    const res = await get(soundPath, k);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-remaining')).toBe('59');
  });

  it('refuses the 2001st request of a day with the day limit, minutes apart', async () => {
    const { key: k } = await key('standard');
    for (let batch = 0; batch < 40; batch++) {
      const n = Math.min(60, 2000 - batch * 60);
      if (n <= 0) break;
      // A minute's worth at once: the order within it does not matter.
      const codes = await Promise.all(
        Array.from({ length: n }, () => get(soundPath, k).then((r) => r.arrayBuffer().then(() => r.status))),
      );
      expect(codes.every((c) => c === 200)).toBe(true);
      clock.t += 2 * MINUTE;
    }
    const res = await get(soundPath, k);
    expect(res.status).toBe(429);
    expect(((await res.json()) as { detail: string }).detail).toBe(
      'Request was throttled because of exceeding a request limit rate (2000/day)',
    );
    expect(res.headers.get('x-ratelimit-limit')).toBe('2000');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(20 * 3600);
  }, 60_000);

  it('never throttles an unlimited credential and sends it no quota headers', async () => {
    const { key: k } = await key('unlimited');
    const codes = await statuses(150, soundPath, k);
    expect(codes.every((c) => c === 200)).toBe(true);
    const res = await get('/apiv2/users/alice/', k);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('refuses every request of a suspended credential with upstream’s detail', async () => {
    const { key: k } = await key('suspended');
    for (const path of [soundPath, soundPath, '/apiv2/users/alice/']) {
      const res = await get(path, k);
      expect(res.status).toBe(429);
      expect(await res.json()).toEqual({
        detail: 'Request was throttled because the ApiV2 credential has been suspended',
      });
      expect(res.headers.get('retry-after')).toBeNull();
    }
  });

  it('gives higher levels higher limits and counts credentials apart', async () => {
    const elevated = await key('elevated');
    const standard = await key('standard');
    expect((await statuses(60, soundPath, standard.key)).every((c) => c === 200)).toBe(true);
    const res = await get(soundPath, elevated.key);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBe('300');
    expect(res.headers.get('x-ratelimit-remaining')).toBe('299');
    expect((await get(soundPath, standard.key)).status).toBe(429);
  });

  it('answers a request without a credential with the authentication error, uncounted', async () => {
    const res = await fetch(`${s.origin}${soundPath}`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    const badKey = await fetch(`${s.origin}/apiv2/users/alice/?token=${'x'.repeat(40)}`);
    expect(badKey.status).toBe(401);
  });

  it.runIf(env.REDIS_URL)('shares one count between two API processes on the same Redis', async () => {
    // A second server with its own limiter and Redis connection: another process, as far as the
    // counters can tell.
    const limits = await openRateLimiter({ ...s.deps.config }, s.deps.logger, {
      now: () => clock.t,
      keyPrefix,
    });
    let other: RunningServer | undefined;
    try {
      other = await startServer({ ...s.deps, rateLimiter: limits.limiter });
      const { key: k } = await key('standard');
      expect((await statuses(30, soundPath, k)).every((c) => c === 200)).toBe(true);
      const there = await statuses(31, soundPath, k, other.origin);
      // Never more than 60 between the two; the first process holds a few slots it took ahead
      // (a quarter of what was left when it last took some: 8 at most after 26), which the other
      // cannot use: the limit comes at most that much early (redis-reservations.ts).
      const passed = there.indexOf(429);
      expect(passed).toBeGreaterThanOrEqual(30 - 8);
      expect(passed).toBeLessThanOrEqual(30);
      expect(there.slice(passed).every((c) => c === 429)).toBe(true);
      expect((await get(soundPath, k)).status).toBe(passed === 30 ? 429 : 200);
    } finally {
      await other?.close();
      await limits.close();
    }
  });
});

async function deleteKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url);
  try {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}
