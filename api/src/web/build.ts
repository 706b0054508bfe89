import type { Db } from '@earshot/catalogue';
import type { Config } from '@earshot/common';
import { signInThrottle } from '@earshot/services';
import { Redis } from 'ioredis';
import { allowedLinkHosts } from '../http/origin.ts';
import type { SoundFiles } from '../ports.ts';
import type { WebDeps } from './deps.ts';

/**
 * The web pages' dependencies: sign-in failures are counted in Redis when REDIS_URL is set (so
 * every API process sees the same counts), in memory otherwise.
 */
export function webDeps(
  config: Config,
  db: Db,
  files: SoundFiles,
): { deps: WebDeps; close: () => Promise<void> } {
  const redis = config.REDIS_URL
    ? new Redis(config.REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 1, enableOfflineQueue: true })
    : undefined;
  return {
    deps: {
      db,
      throttle: signInThrottle(redis),
      signupEnabled: config.SIGNUP_ENABLED,
      files,
      publicUrl: config.PUBLIC_URL,
      allowedHosts: allowedLinkHosts(config),
      oauth2HttpsOnly: config.OAUTH2_HTTPS_ONLY,
    },
    close: async () => {
      if (redis) await redis.quit().catch(() => redis.disconnect());
    },
  };
}
