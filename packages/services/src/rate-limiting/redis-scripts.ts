import type { Redis } from 'ioredis';

/**
 * The rate limits' Redis scripts; they go by EVALSHA (ioredis loads them on a miss). A `clock`
 * window's keys are `<prefix>:<window>:<key>:<bucket>`, a `first-attempt` window's
 * `<prefix>:<key>`: the names rate-limiter-flexible gave them before, so counts carry over a deploy.
 *
 * RESERVE takes, for each (request, window) entry, one KEY — `<prefix>:<window>:<key>` without the
 * bucket — and five ARGV: the bucket, how many slots to take (0 = only read), a bucket to give
 * unused slots back to and how many (0 = none), the bucket's lifetime in ms. The bucket keys are
 * built here rather than sent whole: sending them was most of a reservation's cost. It answers, per
 * entry, the current bucket's count after taking (the last slot taken) and the previous bucket's.
 * Giving back comes first, so a process that moves on to a new bucket reads an exact previous one.
 * A bucket that has expired is not given back to (DECRBY would revive it without an expiry).
 */
const RESERVE = `
local out = {}
for e = 1, #KEYS do
  local base, a = KEYS[e], 5 * (e - 1)
  local bucket, take, back, give = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), ARGV[a + 3], tonumber(ARGV[a + 4])
  if give > 0 then
    local old = base .. ':' .. back
    if redis.call('EXISTS', old) == 1 then redis.call('DECRBY', old, give) end
  end
  local current = base .. ':' .. bucket
  local n
  if take > 0 then
    n = redis.call('INCRBY', current, take)
    if n == take then redis.call('PEXPIRE', current, ARGV[a + 5]) end
  else
    n = tonumber(redis.call('GET', current) or '0')
  end
  out[2 * e - 1] = n
  out[2 * e] = tonumber(redis.call('GET', base .. ':' .. (bucket - 1)) or '0')
end
return out
`;

/** Gives unused slots back: KEYS the buckets, ARGV the counts (skipping buckets that expired). */
const RELEASE = `
for i = 1, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then redis.call('DECRBY', KEYS[i], ARGV[i]) end
end
return 0
`;

/**
 * Counts one attempt in each `first-attempt` window: KEYS the counters, ARGV their windows' lengths
 * in ms. A counter is created with its window's expiry and keeps it (the window starts at the
 * first attempt); one found without an expiry gets a fresh one rather than counting for ever.
 * Answers, per key, the count and the milliseconds left.
 */
const HIT = `
local out = {}
for i = 1, #KEYS do
  redis.call('SET', KEYS[i], 0, 'PX', ARGV[i], 'NX')
  local n = redis.call('INCR', KEYS[i])
  local ttl = redis.call('PTTL', KEYS[i])
  if ttl == -1 then
    redis.call('PEXPIRE', KEYS[i], ARGV[i])
    ttl = tonumber(ARGV[i])
  end
  out[2 * i - 1] = n
  out[2 * i] = ttl
end
return out
`;

/** One (request, window) entry of a RESERVE call. */
export interface ReserveEntry {
  /** `<prefix>:<window>:<key>`: the bucket keys are this, a colon and the bucket's index. */
  base: string;
  bucket: number;
  take: number;
  /** The bucket unused slots go back to (ignored when `give` is 0). */
  back: number;
  give: number;
  ttlMs: number;
}

/** Its answer: the count of the current bucket after taking, and the previous bucket's count. */
export interface ReserveAnswer {
  current: number;
  previous: number;
}

interface ScriptCommands {
  earshotRateReserve(...args: (string | number)[]): Promise<number[]>;
  earshotRateRelease(...args: (string | number)[]): Promise<number>;
  earshotRateHit(...args: (string | number)[]): Promise<number[]>;
}

export interface RateScripts {
  reserve(entries: readonly ReserveEntry[]): Promise<ReserveAnswer[]>;
  /** Gives counts back (skipping counters that expired): reservations' unused slots, refunded attempts. */
  release(buckets: readonly { key: string; count: number }[]): Promise<void>;
  /** Counts one attempt in each `first-attempt` counter: its count and milliseconds left. */
  hit(counters: readonly { key: string; windowMs: number }[]): Promise<{ count: number; msLeft: number }[]>;
}

export function rateScripts(redis: Redis): RateScripts {
  const client = redis as Redis & Partial<ScriptCommands>;
  if (!client.earshotRateReserve) redis.defineCommand('earshotRateReserve', { lua: RESERVE });
  if (!client.earshotRateRelease) redis.defineCommand('earshotRateRelease', { lua: RELEASE });
  if (!client.earshotRateHit) redis.defineCommand('earshotRateHit', { lua: HIT });
  const commands = client as Redis & ScriptCommands;
  return {
    async reserve(entries) {
      const keys: string[] = [];
      const args: number[] = [];
      for (const e of entries) {
        keys.push(e.base);
        args.push(e.bucket, e.take, e.back, e.give, e.ttlMs);
      }
      const out = await commands.earshotRateReserve(keys.length, ...keys, ...args);
      return entries.map((_, i) => ({ current: out[2 * i], previous: out[2 * i + 1] }));
    },
    async release(buckets) {
      if (buckets.length === 0) return;
      await commands.earshotRateRelease(
        buckets.length,
        ...buckets.map((b) => b.key),
        ...buckets.map((b) => b.count),
      );
    },
    async hit(counters) {
      const out = await commands.earshotRateHit(
        counters.length,
        ...counters.map((c) => c.key),
        ...counters.map((c) => c.windowMs),
      );
      return counters.map((_, i) => ({ count: out[2 * i], msLeft: out[2 * i + 1] }));
    },
  };
}
