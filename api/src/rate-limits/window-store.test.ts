import { randomBytes } from 'node:crypto';
import { testService } from '@earshot/common/testing';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { windowStore } from './window-store.ts';

/**
 * The counters themselves: both windows counted in one Redis command, Redis's key names and
 * expiries, the fall-back to memory while Redis is away, and the memory counters' buckets.
 */

const redisUrl = await testService('redis');
const windows = [
  { prefix: 'm', windowMs: 60_000 },
  { prefix: 'd', windowMs: 86_400_000 },
];

describe.runIf(redisUrl)('window store in Redis', () => {
  const prefix = `earshot:test:ws:${randomBytes(6).toString('hex')}`;
  const redis = new Redis(redisUrl as string);
  const store = windowStore({
    redis,
    windows: windows.map((w) => ({ ...w, prefix: `${prefix}:${w.prefix}` })),
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('counts both windows and reads both previous buckets in one command', async () => {
    await redis.set(`${prefix}:m:k:99`, '7');
    const sent: string[] = [];
    const send = redis.sendCommand.bind(redis);
    redis.sendCommand = (command, stream) => {
      sent.push(command.name);
      return send(command, stream);
    };
    try {
      expect(await store.add('k', [100, 5])).toEqual([
        { current: 1, previous: 7 },
        { current: 1, previous: 0 },
      ]);
      expect(await store.add('k', [100, 5])).toEqual([
        { current: 2, previous: 7 },
        { current: 2, previous: 0 },
      ]);
    } finally {
      redis.sendCommand = send;
    }
    expect(sent.filter((name) => name !== 'script')).toEqual(['evalsha', 'evalsha']);
    const ttl = await redis.pttl(`${prefix}:m:k:100`);
    expect(ttl).toBeGreaterThan(110_000);
    expect(ttl).toBeLessThanOrEqual(120_000);
    await store.remove('k', [100, 5]);
    expect(await redis.get(`${prefix}:m:k:100`)).toBe('1');
    expect(await redis.get(`${prefix}:d:k:5`)).toBe('1');
  });

  it('counts in memory while Redis cannot be reached', async () => {
    const away = new Redis('redis://127.0.0.1:1', { enableOfflineQueue: false, lazyConnect: true });
    const insured = windowStore({ redis: away, windows });
    expect(await insured.add('k', [1, 1])).toEqual([
      { current: 1, previous: 0 },
      { current: 1, previous: 0 },
    ]);
    expect((await insured.add('k', [1, 1]))[0].current).toBe(2);
    away.disconnect();
  });
});

describe('window store in memory', () => {
  it('carries the current bucket over as the previous one, and forgets older ones', async () => {
    const store = windowStore({ windows });
    for (let i = 0; i < 3; i++) await store.add('k', [10, 1]);
    expect(await store.add('k', [11, 1])).toEqual([
      { current: 1, previous: 3 },
      { current: 4, previous: 0 },
    ]);
    expect((await store.add('k', [13, 1]))[0]).toEqual({ current: 1, previous: 0 });
  });

  it('counts a clock that steps back into the previous bucket there, and takes refused requests back', async () => {
    const store = windowStore({ windows });
    await store.add('k', [20, 1]);
    await store.add('k', [21, 1]);
    expect((await store.add('k', [20, 1]))[0]).toEqual({ current: 2, previous: 0 });
    await store.remove('k', [20, 1]);
    expect((await store.add('k', [21, 1]))[0]).toEqual({ current: 2, previous: 1 });
  });
});
