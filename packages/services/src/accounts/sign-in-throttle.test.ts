import { randomUUID } from 'node:crypto';
import { testService } from '@earshot/common/testing';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { SIGN_IN_LIMITS, signInThrottle } from './sign-in-throttle.ts';

const redisUrl = await testService('redis');
const redis = redisUrl ? new Redis(redisUrl) : undefined;
afterAll(() => redis?.quit());

const stores = [['memory', undefined] as const, ...(redis ? [['redis', redis] as const] : [])];

describe.each(stores)('sign-in throttle in %s', (_name, client) => {
  const throttle = signInThrottle(client);
  // Fresh keys per run: Redis keeps counters between runs.
  const address = () => `test-${randomUUID()}`;

  it('allows 5 attempts per account and address, then says how long to wait', async () => {
    const a = { account: 'Dave', address: address() };
    for (let i = 0; i < SIGN_IN_LIMITS.perAccountAndAddress.points; i++) {
      expect(await throttle.attempt(a)).toBeUndefined();
    }
    const refused = await throttle.attempt({ ...a, account: ' dave ' });
    expect(refused?.scope).toBe('account');
    expect(refused?.retryAfterMs).toBeGreaterThan(14 * 60_000);
    expect(await throttle.attempt({ account: 'erin', address: a.address })).toBeUndefined();
  });

  it('forgets an account’s failures after a success', async () => {
    const a = { account: 'frank', address: address() };
    for (let i = 0; i < 4; i++) await throttle.attempt(a);
    await throttle.succeeded(a);
    for (let i = 0; i < 5; i++) expect(await throttle.attempt(a)).toBeUndefined();
  });

  it('allows 100 attempts per address across accounts', async () => {
    const from = address();
    for (let i = 0; i < SIGN_IN_LIMITS.perAddress.points; i++) {
      expect(await throttle.attempt({ account: `user${i}`, address: from })).toBeUndefined();
    }
    expect((await throttle.attempt({ account: 'another', address: from }))?.scope).toBe('address');
  });
});

describe('sign-in throttle with Redis unreachable', () => {
  it('counts in memory instead of failing, and still refuses the sixth wrong attempt', async () => {
    // A port nothing listens on; no offline queue, as the server's own client: commands fail at once.
    const gone = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
    });
    gone.on('error', () => {});
    try {
      const throttle = signInThrottle(gone);
      const a = { account: 'grace', address: 'test-unreachable' };
      for (let i = 0; i < SIGN_IN_LIMITS.perAccountAndAddress.points; i++) {
        expect(await throttle.attempt(a)).toBeUndefined();
      }
      expect((await throttle.attempt(a))?.scope).toBe('account');
      await throttle.succeeded(a);
      expect(await throttle.attempt(a)).toBeUndefined();
    } finally {
      gone.disconnect();
    }
  });
});
