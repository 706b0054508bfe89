import type { Redis } from 'ioredis';
import type { WindowStore } from '../rate-limiting/store.ts';
import { windowStore } from '../rate-limiting/window-store.ts';

/**
 * How many failed sign-ins are allowed (docs/web.md): 5 per account from one address in 15 minutes
 * stops password guessing against one person without locking them out from elsewhere; 100 per
 * address in a day stops one address trying many accounts.
 */
export const SIGN_IN_LIMITS = {
  perAccountAndAddress: { points: 5, durationSeconds: 15 * 60 },
  perAddress: { points: 100, durationSeconds: 24 * 60 * 60 },
} as const;

/**
 * How many sign-ups one address may try (docs/web.md): 10 an hour lets a household or a classroom
 * behind one address sign up, and stops one address making accounts, or probing which names are
 * taken, in bulk. Every attempt counts, as every sign-in attempt does.
 */
export const SIGN_UP_LIMIT = { points: 10, durationSeconds: 60 * 60 } as const;

export type ThrottleScope = 'account' | 'address';

export interface SignInAttempt {
  /** The login name as typed (username or email); compared case-insensitively. */
  account: string;
  /** The client's address. */
  address: string;
}

/** Counts sign-in and sign-up attempts; the port the sign-in and sign-up use cases throttle through. */
export interface SignInThrottle {
  /**
   * Counts one attempt. Returns undefined when it may go ahead, else which limit is reached and
   * how long until the next attempt is allowed.
   */
  attempt(attempt: SignInAttempt): Promise<{ scope: ThrottleScope; retryAfterMs: number } | undefined>;
  /** A successful sign-in gives its attempt back and forgets the account's failures from that address. */
  succeeded(attempt: SignInAttempt): Promise<void>;
  /** Counts one sign-up from `address`: undefined when it may go ahead, else how long until one may. */
  signUpAttempt(address: string): Promise<{ retryAfterMs: number } | undefined>;
}

/**
 * The throttle on the rate-limiting window stores, in windows that start at the first attempt:
 * counters in Redis when a client is given (several API processes share them), in this process's
 * memory otherwise, and in memory while Redis is away (guessing stays limited, people can still
 * sign in). Attempts are counted before the password is checked, so parallel guesses cannot slip
 * past the limit; success refunds them. Every attempt counts, a refused one too.
 */
export function signInThrottle(redis?: Redis, keyPrefix = ''): SignInThrottle {
  const limiter = (name: string, limit: { points: number; durationSeconds: number }) => ({
    points: limit.points,
    store: windowStore({
      redis,
      kind: 'first-attempt',
      windows: [{ prefix: `${keyPrefix}${name}`, windowMs: limit.durationSeconds * 1000 }],
    }),
  });
  const perAccount = limiter('signin_acct', SIGN_IN_LIMITS.perAccountAndAddress);
  const perAddress = limiter('signin_addr', SIGN_IN_LIMITS.perAddress);
  const signUps = limiter('signup_addr', SIGN_UP_LIMIT);
  const accountKey = (a: SignInAttempt) => `${a.account.trim().toLowerCase()}|${a.address}`;
  /** Counts one attempt of `key`: undefined when within the limit, else the ms until its window ends. */
  async function consume(
    rl: { points: number; store: WindowStore },
    key: string,
  ): Promise<number | undefined> {
    const [counts] = await rl.store.add(key, [Date.now()], [rl.points]);
    return counts.current > rl.points ? (counts.endsInMs ?? 0) : undefined;
  }

  return {
    async attempt(a) {
      for (const [scope, rl, key] of [
        ['address', perAddress, a.address],
        ['account', perAccount, accountKey(a)],
      ] as const) {
        const retryAfterMs = await consume(rl, key);
        if (retryAfterMs !== undefined) return { scope, retryAfterMs };
      }
      return undefined;
    },
    async succeeded(a) {
      const now = [Date.now()];
      await perAccount.store.reset(accountKey(a), now);
      await perAddress.store.remove(a.address, now, []);
    },
    async signUpAttempt(address) {
      const retryAfterMs = await consume(signUps, address);
      return retryAfterMs === undefined ? undefined : { retryAfterMs };
    },
  };
}
