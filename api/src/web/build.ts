import type { Db } from '@earshot/catalogue';
import type { Config, Logger } from '@earshot/common';
import { signInThrottle } from '@earshot/services';
import { Redis } from 'ioredis';
import type { SoundFiles } from '../application/ports.ts';
import { allowedLinkHosts } from '../framework/http/origin.ts';
import type { WebDeps } from './deps.ts';

/**
 * The web pages' dependencies: sign-in failures are counted in Redis when REDIS_URL is set (so
 * every API process sees the same counts), in memory otherwise.
 */
export function webDeps(
  config: Config,
  db: Db,
  files: SoundFiles,
  logger: Logger,
  /** Namespaces the sign-in counters in a Redis other deployments (or tests) share. */
  throttleKeyPrefix?: string,
): { deps: WebDeps; close: () => Promise<void> } {
  // No offline queue: while Redis is away a sign-in must not wait for it; the throttle then counts
  // in memory until the connection is back.
  const redis = config.REDIS_URL
    ? new Redis(config.REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 1, enableOfflineQueue: false })
    : undefined;
  let warned = false;
  redis?.on('error', (err) => {
    if (!warned) logger.warn({ err }, 'sign-in throttle: Redis unreachable, counting in memory meanwhile');
    warned = true;
  });
  redis?.on('ready', () => {
    warned = false;
  });
  return {
    deps: {
      db,
      throttle: signInThrottle(redis, throttleKeyPrefix),
      signupEnabled: config.SIGNUP_ENABLED,
      credentialsPerUser: config.CREDENTIALS_PER_USER,
      webhookDisableAfterHours: config.WEBHOOK_DISABLE_AFTER_HOURS,
      files,
      publicUrl: config.PUBLIC_URL,
      allowedHosts: allowedLinkHosts(config),
      oauth2HttpsOnly: config.OAUTH2_HTTPS_ONLY,
      trustProxy: config.TRUST_PROXY,
    },
    close: async () => {
      if (redis) await redis.quit().catch(() => redis.disconnect());
    },
  };
}
