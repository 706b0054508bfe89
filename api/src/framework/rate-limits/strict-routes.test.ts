import { randomBytes } from 'node:crypto';
import { testService } from '@earshot/common/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { serveRoutes } from '../../../test/support/routes.ts';
import { type ApiKeyCredential, tokenStrategy } from '../auth/token-strategy.ts';
import { type AnyRoute, defineRoute } from '../http/route.ts';
import { createRateLimiter, type RateLimiter } from './rate-limiter.ts';

/**
 * The route declaration's `rateLimit`: a `strict` route (the write resources of the next issue
 * set it) counts against 30 per minute and 500 per day, apart from the standard count. Served
 * through the real middleware stack; counters in memory and in Redis.
 */

const redisUrl = await testService('redis');

const write = defineRoute({
  method: 'POST',
  path: '/t/bookmark/',
  operationId: 'bookmark',
  summary: 'a stand-in write resource',
  tags: ['test'],
  auth: 'read',
  // What is counted is the subject here, not the grant: scope read lets the test's API keys in.
  scope: 'read',
  rateLimit: 'strict',
  response: z.object({ ok: z.boolean() }),
  handler: async () => ({ ok: true }),
});
const read = defineRoute({
  method: 'GET',
  path: '/t/read/',
  operationId: 'read',
  summary: 'a read resource',
  tags: ['test'],
  auth: 'read',
  response: z.object({ ok: z.boolean() }),
  handler: async () => ({ ok: true }),
});
const open = defineRoute({
  method: 'GET',
  path: '/t/open/',
  operationId: 'open',
  summary: 'public',
  tags: ['test'],
  auth: 'public',
  response: z.object({ ok: z.boolean() }),
  handler: async () => ({ ok: true }),
});
const routes: AnyRoute[] = [write, read, open];

const backends = [
  { name: 'memory', redisUrl: undefined as string | undefined },
  ...(redisUrl ? [{ name: 'Redis', redisUrl }] : []),
];

describe.each(backends)('strict routes, counters in $name', ({ redisUrl: url }) => {
  const clock = { t: Date.UTC(2031, 0, 7, 12) + 5_000 };
  const keyPrefix = `earshot:test:rl:${randomBytes(6).toString('hex')}`;
  const credentials = new Map<string, ApiKeyCredential>();
  let redis: Redis | undefined;
  let server: { origin: string; close: () => Promise<void> };
  let n = 0;
  function key(level: ApiKeyCredential['rateLimitLevel']): string {
    const k = `key-${++n}`;
    credentials.set(k, {
      clientId: `client-${n}`,
      userId: n,
      username: 'u',
      active: true,
      rateLimitLevel: level,
    });
    return k;
  }
  beforeAll(async () => {
    redis = url ? new Redis(url) : undefined;
    const limiter: RateLimiter = createRateLimiter({ redis, keyPrefix, now: () => clock.t });
    server = await serveRoutes(routes, {
      strategies: [tokenStrategy(async (k) => credentials.get(k))],
      rateLimiter: limiter,
    });
  });
  afterAll(async () => {
    await server?.close();
    if (redis) {
      const keys = await redis.keys(`${keyPrefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
  });
  const call = async (method: 'GET' | 'POST', path: string, k: string) => {
    const res = await fetch(`${server.origin}${path}`, { method, headers: { Authorization: `Token ${k}` } });
    return { status: res.status, headers: res.headers, body: (await res.json()) as { detail?: string } };
  };

  it('lets 30 strict requests a minute through, refuses the 31st, and counts reads apart', async () => {
    const k = key('standard');
    for (let i = 1; i <= 30; i++) {
      const res = await call('POST', '/t/bookmark/', k);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('30');
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(30 - i));
    }
    const refused = await call('POST', '/t/bookmark/', k);
    expect(refused.status).toBe(429);
    expect(refused.body.detail).toBe(
      'Request was throttled because of exceeding a request limit rate (30/minute)',
    );
    expect(refused.headers.get('retry-after')).toBe('57');
    const reading = await call('GET', '/t/read/', k);
    expect(reading.status).toBe(200);
    expect(reading.headers.get('x-ratelimit-limit')).toBe('60');
    expect(reading.headers.get('x-ratelimit-remaining')).toBe('59');
  });

  it('refuses the 501st strict request of a day', async () => {
    const k = key('standard');
    for (let sent = 0; sent < 500; sent += 25) {
      const batch = await Promise.all(Array.from({ length: 25 }, () => call('POST', '/t/bookmark/', k)));
      expect(batch.every((r) => r.status === 200)).toBe(true);
      clock.t += 120_000;
    }
    const refused = await call('POST', '/t/bookmark/', k);
    expect(refused.status).toBe(429);
    expect(refused.body.detail).toBe(
      'Request was throttled because of exceeding a request limit rate (500/day)',
    );
  });

  it('applies the level to strict routes too: elevated 60 a minute, unlimited none, suspended refused', async () => {
    const elevated = await call('POST', '/t/bookmark/', key('elevated'));
    expect(elevated.headers.get('x-ratelimit-limit')).toBe('60');
    const unlimited = key('unlimited');
    for (let i = 0; i < 40; i++) expect((await call('POST', '/t/bookmark/', unlimited)).status).toBe(200);
    const suspended = await call('POST', '/t/bookmark/', key('suspended'));
    expect(suspended.status).toBe(429);
    expect(suspended.body.detail).toBe(
      'Request was throttled because the ApiV2 credential has been suspended',
    );
  });

  it('does not count public routes', async () => {
    const res = await fetch(`${server.origin}/t/open/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
  });
});
