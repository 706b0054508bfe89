import { randomBytes } from 'node:crypto';
import { testService } from '@earshot/common/testing';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { windowStore } from './window-store.ts';

/**
 * The counters themselves: both windows counted in one Redis command (one EVALSHA per batch of
 * concurrent requests, each getting its own counts), Redis's key names and expiries, the fall-back to memory while Redis is away, and the memory counters' buckets.
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

  /** Counts the EVALSHAs sent while `run` runs. */
  async function evalshas<T>(run: () => Promise<T>): Promise<{ result: T; calls: number }> {
    const sent: string[] = [];
    const send = redis.sendCommand.bind(redis);
    redis.sendCommand = (command, stream) => {
      sent.push(command.name);
      return send(command, stream);
    };
    try {
      const result = await run();
      return { result, calls: sent.filter((name) => name === 'evalsha').length };
    } finally {
      redis.sendCommand = send;
    }
  }

  it('counts both windows and reads both previous buckets in one command per batch', async () => {
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
    // Two requests one after the other: two batches of one, one EVALSHA each.
    expect(sent.filter((name) => name !== 'script')).toEqual(['evalsha', 'evalsha']);
    const ttl = await redis.pttl(`${prefix}:m:k:100`);
    expect(ttl).toBeGreaterThan(110_000);
    expect(ttl).toBeLessThanOrEqual(120_000);
    await store.remove('k', [100, 5]);
    expect(await redis.get(`${prefix}:m:k:100`)).toBe('1');
    expect(await redis.get(`${prefix}:d:k:5`)).toBe('1');
  });

  it('counts concurrent requests in one or two EVALSHAs, each once and with its own counts', async () => {
    await store.add('warm', [1, 1]); // the script is loaded: no NOSCRIPT retry below
    await redis.set(`${prefix}:m:c:199`, '4');
    const { result, calls } = await evalshas(() =>
      Promise.all([
        ...Array.from({ length: 50 }, () => store.add('c', [200, 9])),
        ...Array.from({ length: 10 }, (_, i) => store.add(`o${i}`, [200, 9])),
      ]),
    );
    expect(calls).toBeGreaterThanOrEqual(1);
    expect(calls).toBeLessThanOrEqual(2);
    const shared = result.slice(0, 50);
    expect(shared.map((counts) => counts[0].current).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
    for (const counts of shared) {
      expect(counts[0].previous).toBe(4);
      expect(counts[1]).toEqual({ current: counts[0].current, previous: 0 });
    }
    for (const counts of result.slice(50)) {
      expect(counts).toEqual([
        { current: 1, previous: 0 },
        { current: 1, previous: 0 },
      ]);
    }
    expect(await redis.get(`${prefix}:m:c:200`)).toBe('50');
    expect(await redis.get(`${prefix}:d:c:9`)).toBe('50');
    expect(await redis.pttl(`${prefix}:d:o3:9`)).toBeGreaterThan(172_000_000);
  });

  it('sends a full batch at once and counts a burst larger than a batch exactly', async () => {
    const { result, calls } = await evalshas(() =>
      Promise.all(Array.from({ length: 1_200 }, () => store.add('burst', [300, 12]))),
    );
    expect(calls).toBeGreaterThanOrEqual(3);
    expect(calls).toBeLessThanOrEqual(4);
    expect(result.map((counts) => counts[0].current).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 1_200 }, (_, i) => i + 1),
    );
    expect(await redis.get(`${prefix}:m:burst:300`)).toBe('1200');
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
