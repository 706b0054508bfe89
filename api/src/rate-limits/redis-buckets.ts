import type { Redis } from 'ioredis';
import type { WindowCounts } from './window-store.ts';

/**
 * One round trip per counted request: a script adds one to the current bucket of every window
 * (giving a new bucket its expiry) and reads the previous buckets, atomically. KEYS come in pairs
 * per window (current, previous); ARGV holds each window's bucket lifetime in milliseconds. Reading
 * the previous bucket inside the script costs no extra trip, so it is not cached here (a cache
 * would also have to trust every process's clock to agree on when a bucket is finished).
 */
const COUNT = `
local out = {}
for w = 1, #ARGV do
  local n = redis.call('INCR', KEYS[2 * w - 1])
  if n == 1 then redis.call('PEXPIRE', KEYS[2 * w - 1], ARGV[w]) end
  out[2 * w - 1] = n
  out[2 * w] = tonumber(redis.call('GET', KEYS[2 * w]) or '0')
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
  earshotRateCount(...args: (string | number)[]): Promise<number[]>;
  earshotRateUncount(...args: (string | number)[]): Promise<number>;
}

/**
 * Counters in Redis, keyed `<prefix>:<window>:<key>:<bucket>` (the names rate-limiter-flexible gave
 * them before, so counts carry over a deploy). Scripts go by EVALSHA (ioredis loads them on a miss).
 */
export function redisBuckets(
  redis: Redis,
  windows: readonly { prefix: string; windowMs: number }[],
): {
  add(key: string, indices: readonly number[]): Promise<WindowCounts[]>;
  remove(key: string, indices: readonly number[]): Promise<undefined>;
} {
  const client = redis as Redis & Partial<BucketCommands>;
  if (!client.earshotRateCount) {
    redis.defineCommand('earshotRateCount', { lua: COUNT });
    redis.defineCommand('earshotRateUncount', { lua: UNCOUNT });
  }
  const commands = client as Redis & BucketCommands;
  // A bucket must outlive its window by another window to be read as the previous one.
  const ttls = windows.map((w) => 2 * w.windowMs);
  return {
    add(key, indices) {
      const keys = indices.flatMap((index, w) => [
        `${windows[w].prefix}:${key}:${index}`,
        `${windows[w].prefix}:${key}:${index - 1}`,
      ]);
      return commands
        .earshotRateCount(keys.length, ...keys, ...ttls)
        .then((out) =>
          indices.map((_, w): WindowCounts => ({ current: out[2 * w], previous: out[2 * w + 1] })),
        );
    },
    remove(key, indices) {
      const keys = indices.map((index, w) => `${windows[w].prefix}:${key}:${index}`);
      return commands.earshotRateUncount(keys.length, ...keys, ...ttls).then(() => undefined);
    },
  };
}
