import { randomBytes } from 'node:crypto';
import { testService } from '@earshot/common/testing';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { windowStore } from './window-store.ts';

/**
 * The counters themselves: in Redis, reservations (a few slots taken at once, handed out from
 * memory, each slot to one request of one process; given back when unused), Redis's key names and
 * expiries, the fall-back to memory while Redis is away; in memory, the buckets.
 */

const redisUrl = await testService('redis');
const windows = [
  { prefix: 'm', windowMs: 60_000 },
  { prefix: 'd', windowMs: 86_400_000 },
];

describe.runIf(redisUrl)('window store in Redis', () => {
  const prefix = `earshot:test:ws:${randomBytes(6).toString('hex')}`;
  const redis = new Redis(redisUrl as string);
  const prefixed = windows.map((w) => ({ ...w, prefix: `${prefix}:${w.prefix}` }));
  const store = windowStore({ redis, windows: prefixed });
  /** The limits of the two windows (a fresh key takes a quarter of each: 15 and 500). */
  const limits = [60, 2000];
  afterAll(async () => {
    await store.close?.();
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

  it('takes a quarter of the limit at once and counts the next requests from memory, exactly', async () => {
    await redis.set(`${prefix}:m:k:99`, '7');
    const { result, calls } = await evalshas(async () => {
      const out = [await store.add('k', [100, 5], limits)];
      // The reservation serves the next 14 at once: no promise, no command.
      for (let i = 0; i < 14; i++) {
        const counted = store.add('k', [100, 5], limits);
        expect(counted).not.toBeInstanceOf(Promise);
        out.push(await counted);
      }
      out.push(await store.add('k', [100, 5], limits)); // the 16th takes more
      return out;
    });
    expect(calls).toBe(2);
    expect(result.map((c) => c[0])).toEqual(
      Array.from({ length: 16 }, (_, i) => ({ current: i + 1, previous: 7 })),
    );
    expect(result.map((c) => c[1].current)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
    // In Redis: 15 taken, then a quarter of what the 15 and the previous bucket's 7 leave (9); the
    // day's 500 once.
    expect(await redis.get(`${prefix}:m:k:100`)).toBe('24');
    expect(await redis.get(`${prefix}:d:k:5`)).toBe('500');
    const ttl = await redis.pttl(`${prefix}:m:k:100`);
    expect(ttl).toBeGreaterThan(110_000);
    expect(ttl).toBeLessThanOrEqual(120_000);
  });

  it('takes refused requests back, and gives unused slots back when the key moves to the next bucket', async () => {
    const counted = await store.add('r', [400, 7], limits);
    expect(counted[0].current).toBe(1);
    await store.add('r', [400, 7], limits);
    const refused = await store.add('r', [400, 7], limits);
    expect(refused[0].current).toBe(3);
    await store.remove('r', [400, 7], refused);
    expect((await store.add('r', [400, 7], limits))[0].current).toBe(3);
    // Three used of the 15 taken: the next bucket reads the previous one as 3, not 15.
    expect(await redis.get(`${prefix}:m:r:400`)).toBe('15');
    expect((await store.add('r', [401, 7], limits))[0]).toEqual({ current: 1, previous: 3 });
    expect(await redis.get(`${prefix}:m:r:400`)).toBe('3');
  });

  it('takes fewer slots as the count nears the limit, and gives unused ones back on closing', async () => {
    const closing = windowStore({ redis, windows: prefixed });
    for (let i = 0; i < 40; i++) await closing.add('n', [500, 8], limits);
    // 15, 11, 8, 6 taken: 40 in Redis.
    expect(await redis.get(`${prefix}:m:n:500`)).toBe('40');
    await closing.add('n', [500, 8], limits);
    // 40 seen: a quarter of the 20 left.
    expect(await redis.get(`${prefix}:m:n:500`)).toBe('45');
    for (let i = 0; i < 19; i++) await closing.add('n', [500, 8], limits);
    // 60 used, one slot at a time at the end: nothing is held ahead.
    expect(await redis.get(`${prefix}:m:n:500`)).toBe('60');
    await closing.add('n', [500, 8], limits);
    await closing.close?.();
    expect(await redis.get(`${prefix}:m:n:500`)).toBe('61');
    expect(await redis.get(`${prefix}:d:n:8`)).toBe('61');
  });

  it('lets two processes hand out every slot once: never more requests than the limit', async () => {
    const other = windowStore({ redis, windows: prefixed });
    try {
      const counts: number[] = [];
      for (let i = 0; i < 70; i++) {
        const s = i % 3 === 0 ? other : store;
        counts.push((await s.add('two', [600, 9], limits))[0].current);
      }
      // Each count is a distinct slot of the bucket: a request judged with 60 or less is one of
      // the first 60 slots, whichever process took it.
      expect(new Set(counts).size).toBe(70);
      // Slots held unused by the other process make the counts run ahead of the requests a little.
      expect(counts.filter((c) => c <= 60).length).toBeGreaterThanOrEqual(55);
    } finally {
      await other.close?.();
    }
  });

  it('counts concurrent requests of one key each once, sharing the reservations', async () => {
    await store.add('warm', [1, 1], limits); // the script is loaded: no NOSCRIPT retry below
    const { result, calls } = await evalshas(() =>
      Promise.all([
        ...Array.from({ length: 50 }, () => store.add('c', [200, 9], [300, 5000])),
        ...Array.from({ length: 10 }, (_, i) => store.add(`o${i}`, [200, 9], limits)),
      ]),
    );
    expect(calls).toBeLessThanOrEqual(4);
    expect(
      result
        .slice(0, 50)
        .map((counts) => counts[0].current)
        .sort((a, b) => a - b),
    ).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    for (const counts of result.slice(50)) {
      expect(counts).toEqual([
        { current: 1, previous: 0 },
        { current: 1, previous: 0 },
      ]);
    }
    expect(await redis.pttl(`${prefix}:d:o3:9`)).toBeGreaterThan(172_000_000);
  });

  it('sends a full batch at once and counts a burst of many keys exactly', async () => {
    const { result, calls } = await evalshas(() =>
      Promise.all(Array.from({ length: 1_200 }, (_, i) => store.add(`b${i % 600}`, [300, 12], limits))),
    );
    expect(calls).toBeGreaterThanOrEqual(3);
    expect(calls).toBeLessThanOrEqual(6);
    expect(result.map((counts) => counts[0].current).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 1_200 }, (_, i) => Math.floor(i / 600) + 1),
    );
  });

  it('counts in memory while Redis cannot be reached', async () => {
    const away = new Redis('redis://127.0.0.1:1', { enableOfflineQueue: false, lazyConnect: true });
    const insured = windowStore({ redis: away, windows });
    expect(await insured.add('k', [1, 1], limits)).toEqual([
      { current: 1, previous: 0 },
      { current: 1, previous: 0 },
    ]);
    expect((await insured.add('k', [1, 1], limits))[0].current).toBe(2);
    await insured.close?.();
    away.disconnect();
  });
});

describe('window store in memory', () => {
  it('carries the current bucket over as the previous one, and forgets older ones', async () => {
    const store = windowStore({ windows });
    for (let i = 0; i < 3; i++) await store.add('k', [10, 1], [60, 2000]);
    expect(await store.add('k', [11, 1], [60, 2000])).toEqual([
      { current: 1, previous: 3 },
      { current: 4, previous: 0 },
    ]);
    expect((await store.add('k', [13, 1], [60, 2000]))[0]).toEqual({ current: 1, previous: 0 });
  });

  it('counts a clock that steps back into the previous bucket there, and takes refused requests back', async () => {
    const store = windowStore({ windows });
    await store.add('k', [20, 1], [60, 2000]);
    await store.add('k', [21, 1], [60, 2000]);
    expect((await store.add('k', [20, 1], [60, 2000]))[0]).toEqual({ current: 2, previous: 0 });
    await store.remove('k', [20, 1], []);
    expect((await store.add('k', [21, 1], [60, 2000]))[0]).toEqual({ current: 2, previous: 1 });
  });
});

describe('window store, clock windows: reset', () => {
  it('forgets a key’s current and previous buckets, in memory and in Redis', async () => {
    const memory = windowStore({ windows });
    await memory.add('k', [30, 1], [60, 2000]);
    await memory.add('k', [31, 1], [60, 2000]);
    await memory.reset('k', [31, 1]);
    expect(await memory.add('k', [31, 1], [60, 2000])).toEqual([
      { current: 1, previous: 0 },
      { current: 1, previous: 0 },
    ]);
    if (!redisUrl) return;
    const prefix = `earshot:test:ws:${randomBytes(6).toString('hex')}`;
    const redis = new Redis(redisUrl);
    const store = windowStore({
      redis,
      windows: windows.map((w) => ({ ...w, prefix: `${prefix}:${w.prefix}` })),
    });
    try {
      await store.add('k', [30, 1], [60, 2000]);
      await store.add('k', [31, 1], [60, 2000]);
      await store.reset('k', [31, 1]);
      expect(await redis.keys(`${prefix}*`)).toEqual([]);
      expect(await store.add('k', [31, 1], [60, 2000])).toEqual([
        { current: 1, previous: 0 },
        { current: 1, previous: 0 },
      ]);
    } finally {
      await store.close?.();
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
  });
});

describe('window store, windows that start at the first attempt', () => {
  const spec = (prefix: string) => [{ prefix: `${prefix}:a`, windowMs: 60_000 }];

  it('in memory: counts from the first attempt for a window, then starts afresh', () => {
    const store = windowStore({ kind: 'first-attempt', windows: spec('mem') });
    const t = 1_000_000;
    expect(store.add('k', [t], [3])).toEqual([{ current: 1, previous: 0, endsInMs: 60_000 }]);
    expect(store.add('k', [t + 50_000], [3])).toEqual([{ current: 2, previous: 0, endsInMs: 10_000 }]);
    store.remove('k', [t + 50_000], []);
    expect(store.add('k', [t + 59_999], [3])).toEqual([{ current: 2, previous: 0, endsInMs: 1 }]);
    expect(store.add('k', [t + 60_000], [3])).toEqual([{ current: 1, previous: 0, endsInMs: 60_000 }]);
    store.reset('k', [t + 60_001]);
    expect(store.add('k', [t + 61_000], [3])).toEqual([{ current: 1, previous: 0, endsInMs: 60_000 }]);
  });

  it.runIf(redisUrl)(
    'in Redis: one key per window and key, expiring a window after its first count',
    async () => {
      const prefix = `earshot:test:ws:${randomBytes(6).toString('hex')}`;
      const redis = new Redis(redisUrl as string);
      const store = windowStore({ redis, kind: 'first-attempt', windows: spec(prefix) });
      try {
        expect((await store.add('k', [0], [3]))[0].current).toBe(1);
        const [second] = await store.add('k', [0], [3]);
        expect(second.current).toBe(2);
        expect(second.endsInMs).toBeGreaterThan(55_000);
        expect(second.endsInMs).toBeLessThanOrEqual(60_000);
        expect(await redis.get(`${prefix}:a:k`)).toBe('2');
        await store.remove('k', [0], []);
        expect(await redis.get(`${prefix}:a:k`)).toBe('1');
        expect(await redis.pttl(`${prefix}:a:k`)).toBeGreaterThan(55_000);
        await store.reset('k', [0]);
        expect(await redis.exists(`${prefix}:a:k`)).toBe(0);
        // Taking back from a counter that has gone does not revive it without an expiry.
        await store.remove('k', [0], []);
        expect(await redis.exists(`${prefix}:a:k`)).toBe(0);
      } finally {
        await redis.del(`${prefix}:a:k`);
        redis.disconnect();
      }
    },
  );
});
