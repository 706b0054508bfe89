import type { Redis } from 'ioredis';
import type { WindowCounts } from './window-store.ts';

/**
 * Counts a batch of requests in one round trip: for every request, the script adds one to the
 * current bucket of every window (giving a new bucket its expiry) and reads the previous bucket,
 * all atomically. ARGV holds each window's bucket lifetime in milliseconds (W = #ARGV windows);
 * KEYS come in pairs (current, previous), W pairs per request, requests one after another, and the
 * answer holds (current count, previous count) per pair in the same order. Two requests of one key
 * in a batch are counted one after the other, as two calls would. Reading the previous bucket
 * inside the script costs no extra trip, so it is not cached here (a cache would also have to trust
 * every process's clock to agree on when a bucket is finished).
 */
const COUNT = `
local w = #ARGV
local out = {}
for p = 1, #KEYS / 2 do
  local current = KEYS[2 * p - 1]
  local n = redis.call('INCR', current)
  if n == 1 then redis.call('PEXPIRE', current, ARGV[(p - 1) % w + 1]) end
  out[2 * p - 1] = n
  out[2 * p] = tonumber(redis.call('GET', KEYS[2 * p]) or '0')
end
return out
`;

/** Takes one back from each current bucket (KEYS), never leaving a key without its expiry. */
const UNCOUNT = `
for w = 1, #ARGV do
  redis.call('DECR', KEYS[w])
  if redis.call('PTTL', KEYS[w]) < 0 then redis.call('PEXPIRE', KEYS[w], ARGV[w]) end
end
return 0
`;

interface BucketCommands {
  earshotRateCountBatch(...args: (string | number)[]): Promise<number[]>;
  earshotRateUncount(...args: (string | number)[]): Promise<number>;
}

/** Requests counted by one script call at most (4 keys each with two windows: 2,000 keys). */
export const MAX_BATCH = 500;

interface Pending {
  keys: string[];
  resolve(counts: WindowCounts[]): void;
  reject(error: unknown): void;
}

/**
 * Counters in Redis, keyed `<prefix>:<window>:<key>:<bucket>` (the names rate-limiter-flexible gave
 * them before, so counts carry over a deploy). Scripts go by EVALSHA (ioredis loads them on a miss).
 *
 * Counting is batched: while a script call is in flight, the requests that arrive wait for it to
 * return and then go together in the next call (at most MAX_BATCH requests; a full batch goes at
 * once). With nothing in flight a request goes at the end of the current tick (a microtask, no
 * timer), joined only by those arriving in the same tick. So at 50 concurrent connections there
 * are one or two calls in flight instead of fifty, each request still counted once, atomically,
 * with its own counts. A failed call fails every request of its batch (the caller falls back).
 */
export function redisBuckets(
  redis: Redis,
  windows: readonly { prefix: string; windowMs: number }[],
): {
  add(key: string, indices: readonly number[]): Promise<WindowCounts[]>;
  remove(key: string, indices: readonly number[]): Promise<undefined>;
} {
  const client = redis as Redis & Partial<BucketCommands>;
  if (!client.earshotRateCountBatch) {
    redis.defineCommand('earshotRateCountBatch', { lua: COUNT });
  }
  if (!client.earshotRateUncount) {
    redis.defineCommand('earshotRateUncount', { lua: UNCOUNT });
  }
  const commands = client as Redis & BucketCommands;
  // A bucket must outlive its window by another window to be read as the previous one.
  const ttls = windows.map((w) => 2 * w.windowMs);
  const pairs = windows.length;

  let queue: Pending[] = [];
  let inFlight = 0;
  let scheduled = false;

  function send(batch: Pending[]): void {
    inFlight++;
    const keys = batch.flatMap((p) => p.keys);
    commands.earshotRateCountBatch(keys.length, ...keys, ...ttls).then(
      (out) => {
        batch.forEach((p, r) => {
          const base = 2 * pairs * r;
          const counts: WindowCounts[] = [];
          for (let w = 0; w < pairs; w++) {
            counts.push({ current: out[base + 2 * w], previous: out[base + 2 * w + 1] });
          }
          p.resolve(counts);
        });
        settled();
      },
      (error: unknown) => {
        for (const p of batch) p.reject(error);
        settled();
      },
    );
  }

  function settled(): void {
    inFlight--;
    if (inFlight === 0) flush();
  }

  /** Sends what waits (always less than a full batch: a full one has gone already). */
  function flush(): void {
    if (queue.length === 0) return;
    const batch = queue;
    queue = [];
    send(batch);
  }

  return {
    add(key, indices) {
      const keys = indices.flatMap((index, w) => [
        `${windows[w].prefix}:${key}:${index}`,
        `${windows[w].prefix}:${key}:${index - 1}`,
      ]);
      return new Promise<WindowCounts[]>((resolve, reject) => {
        queue.push({ keys, resolve, reject });
        if (queue.length >= MAX_BATCH) {
          send(queue);
          queue = [];
        } else if (inFlight === 0 && !scheduled) {
          scheduled = true;
          queueMicrotask(() => {
            scheduled = false;
            if (inFlight === 0) flush();
          });
        }
      });
    },
    remove(key, indices) {
      const keys = indices.map((index, w) => `${windows[w].prefix}:${key}:${index}`);
      return commands.earshotRateUncount(keys.length, ...keys, ...ttls).then(() => undefined);
    },
  };
}
