import type { Config, Logger } from '@earshot/common';
import type { OAuth2Service } from '@earshot/services';
import type { Metrics } from './adapters/metrics.ts';
import type { ApiPorts } from './application/index.ts';
import type { AuthStrategy } from './framework/auth/principal.ts';
import type { RateLimiter } from './framework/rate-limits/rate-limiter.ts';
import type { WebDeps } from './web/deps.ts';

/** What the HTTP layer needs from the rest of the system; the server wires the real ones. */
export interface AppDeps {
  config: Config;
  logger: Logger;
  version: string;
  /** Resolves when the database answers a trivial query. */
  checkDatabase: () => Promise<void>;
  /** The read model of the version 2 API; without it only the health endpoint is served. */
  api?: ApiPorts;
  /** Tried in order on every request that needs a credential (API key now, OAuth2 later). */
  authStrategies?: AuthStrategy[];
  /** The OAuth2 use cases (token endpoint; the authorize pages); absent = no OAuth2 endpoints. */
  oauth2?: OAuth2Service;
  /** The web pages (sign-in, sessions); without it none is served. */
  web?: WebDeps;
  /** Per-credential rate limits on every credentialed request (hot path included); absent = none. */
  rateLimiter?: RateLimiter;
  /** Request durations and the gauges /metrics serves; absent = no /metrics, nothing measured. */
  metrics?: Metrics;
  /** What /ready checks besides the database; an absent check is not part of readiness. */
  readiness?: {
    /** True while the Redis connection (rate-limit counters) is up; set only when REDIS_URL is. */
    redis?: () => boolean;
    /** True once the similarity indexes are loaded. */
    similarity?: () => boolean;
    /** Under `serve --processes N`: true while every process of the host is ready (its primary says). */
    processes?: () => boolean;
    /**
     * True once the text search index is built. Reported, never a reason to be unready: until then
     * text searches run in the database, with the same answers.
     */
    searchIndex?: () => boolean;
  };
}
