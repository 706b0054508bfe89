import { authenticateUser, type Db, type PublicUser } from '@earshot/catalogue';
import type { SignInThrottle, ThrottleScope } from './sign-in-throttle.ts';

export interface SignInRequest {
  /** Username or email address. */
  login: string;
  password: string;
  /** The client's address, for throttling. */
  address: string;
}

export type SignInOutcome =
  | { kind: 'signed-in'; user: PublicUser }
  | { kind: 'wrong-credentials' }
  | { kind: 'throttled'; scope: ThrottleScope; retryAfterMs: number };

/**
 * Checks a person's login name and password (scrypt, compared in constant time by the catalogue),
 * counted by the throttle first: once a limit is reached the password is not even checked.
 */
export async function signIn(
  db: Db,
  throttle: SignInThrottle,
  request: SignInRequest,
): Promise<SignInOutcome> {
  const login = request.login.trim();
  const attempt = { account: login, address: request.address };
  const refused = await throttle.attempt(attempt);
  if (refused) return { kind: 'throttled', ...refused };
  const user = login === '' ? undefined : await authenticateUser(db, login, request.password);
  if (!user) return { kind: 'wrong-credentials' };
  await throttle.succeeded(attempt);
  return { kind: 'signed-in', user };
}
