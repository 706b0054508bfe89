import type { Db } from '@earshot/catalogue';
import type { OAuth2Service, SignInThrottle } from '@earshot/services';
import type { ApiServices } from '../application/index.ts';
import type { SoundFiles } from '../application/ports.ts';
import type { RateLimiter } from '../framework/rate-limits/rate-limiter.ts';

/** What the web pages need: the catalogue (through the services' use cases) and the sign-in throttle. */
export interface WebDeps {
  db: Db;
  throttle: SignInThrottle;
  /** CREDENTIALS_PER_USER: the most live API credentials the credentials page lets one account have. */
  credentialsPerUser: number;
  /** WEBHOOK_DISABLE_AFTER_HOURS: the webhooks page says after how long a failing webhook is switched off (default 72). */
  webhookDisableAfterHours?: number;
  /** SIGNUP_ENABLED: the sign-up page exists (else it is a 404). */
  signupEnabled: boolean;
  /** The sounds' stored files, for the moderation page's previews and images. */
  files: SoundFiles;
  /** PUBLIC_URL: the origin absolute addresses shown on pages start with (else the request's). */
  publicUrl?: string;
  /** Host names links may be built from when publicUrl is unset (http/origin.ts). */
  allowedHosts?: readonly string[];
  /** The OAuth2 use cases behind the authorize, code and authorized-applications pages (absent: no such pages). */
  oauth2?: OAuth2Service;
  /** OAUTH2_HTTPS_ONLY: the OAuth2 pages, and the pages that take a password, over plain http are a 403 page. */
  oauth2HttpsOnly?: boolean;
  /** TRUST_PROXY: with a proxy in front, no client counts as being on this machine (https-only.ts). */
  trustProxy?: number;
  /** The API's limiter: a signed-in user's forms count against its strict (write) limit; absent = not counted. */
  rateLimiter?: RateLimiter;
  /** The API's use cases the reading pages (home, search, sound) call; absent = no such pages. */
  api?: ApiServices;
}
