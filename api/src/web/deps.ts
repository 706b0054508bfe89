import type { Db } from '@earshot/catalogue';
import type { SignInThrottle } from '@earshot/services';
import type { SoundFiles } from '../ports.ts';

/** What the web pages need: the catalogue (through the services' use cases) and the sign-in throttle. */
export interface WebDeps {
  db: Db;
  throttle: SignInThrottle;
  /** SIGNUP_ENABLED: the sign-up page exists (else it is a 404). */
  signupEnabled: boolean;
  /** The sounds' stored files, for the moderation page's previews and images. */
  files: SoundFiles;
  /** PUBLIC_URL: the origin absolute addresses shown on pages start with (else the request's). */
  publicUrl?: string;
}
