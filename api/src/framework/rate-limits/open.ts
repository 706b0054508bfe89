import type { Config, Logger } from '@earshot/common';
import { Redis } from 'ioredis';
import { createRateLimiter, type RateLimiter, type RateLimiterOptions } from './rate-limiter.ts';

export type RateLimitSettings = Omit<RateLimiterOptions, 'redis'>;

/**
 * The server's rate limiter: counters in Redis when REDIS_URL is set, so every API process counts
 * against the same numbers, in this process's memory otherwise.
 */
export async function openRateLimiter(
  config: Config,
  logger: Logger,
  settings: RateLimitSettings = {},
): Promise<{ limiter: RateLimiter; close: () => Promise<void>; redisReady?: () => boolean }> {
  if (!config.REDIS_URL) return { limiter: createRateLimiter(settings), close: async () => {} };
  // No offline queue: while Redis is away a request must not wait for it; the limiter then counts
  // in memory (its insurance) until the connection is back.
  const redis = new Redis(config.REDIS_URL, { enableOfflineQueue: false, lazyConnect: true });
  let warned = false;
  redis.on('error', (err) => {
    if (!warned) logger.warn({ err }, 'rate-limit counters: Redis unreachable, counting in memory meanwhile');
    warned = true;
  });
  redis.on('ready', () => {
    warned = false;
  });
  try {
    await redis.connect();
  } catch (err) {
    logger.warn({ err }, 'rate-limit counters: Redis unreachable at start, counting in memory meanwhile');
  }
  const limiter = createRateLimiter({ ...settings, redis });
  return {
    limiter,
    redisReady: () => redis.status === 'ready',
    close: async () => {
      await limiter.close();
      redis.disconnect();
    },
  };
}
