import {
  type Db,
  findUserByEmail,
  createUser as insertUser,
  type NewUser,
  UserExistsError,
} from '@earshot/catalogue';
import { ValidationError } from '@earshot/common';
import type { SignInThrottle } from './sign-in-throttle.ts';

/**
 * Creates a user (the CLI's `users create`, the demo import): checks the input a person typed,
 * then stores it through the catalogue's user repository (scrypt password hash included).
 * Returns the new user's id.
 */
export async function createUser(db: Db, user: NewUser): Promise<number> {
  const username = user.username.trim();
  if (!/^[\w.@+-]{1,150}$/.test(username)) {
    throw new ValidationError('A username has 1–150 letters, digits and the characters . @ + - _');
  }
  if (user.email && !/^[^@\s]+@[^@\s]+$/.test(user.email))
    throw new ValidationError(`"${user.email}" is not an email address.`);
  const created = await insertUser(db, { ...user, username });
  return created.id;
}

/** Shortest password a person may choose on the sign-up page. */
export const MIN_PASSWORD_LENGTH = 8;

export type SignUpOutcome = { kind: 'created'; userId: number } | { kind: 'throttled'; retryAfterMs: number };

/**
 * Sign-up from the web page (when the setting allows it): a person chooses a username, gives an
 * email address and a password. The email is required here so that sign-in by email works.
 * Counted per client address first (the sign-in throttle's SIGN_UP_LIMIT). Usernames are public
 * (profile pages), so a taken one is refused (409); an email address is not, so the answer never
 * tells whether it is in use: an address another account holds is simply not recorded on the new
 * account, which is created and signed in all the same (the person can sign in by username).
 */
export async function signUp(
  db: Db,
  throttle: SignInThrottle,
  input: { username: string; email: string; password: string; address: string },
): Promise<SignUpOutcome> {
  const refused = await throttle.signUpAttempt(input.address);
  if (refused) return { kind: 'throttled', ...refused };
  const email = input.email.trim();
  if (email === '') throw new ValidationError('An email address is required.');
  if (input.password.length < MIN_PASSWORD_LENGTH)
    throw new ValidationError(`A password has at least ${MIN_PASSWORD_LENGTH} characters.`);
  const user = { username: input.username, email, password: input.password };
  const inUse = (await findUserByEmail(db, email)) !== undefined;
  try {
    return { kind: 'created', userId: await createUser(db, inUse ? { ...user, email: undefined } : user) };
  } catch (err) {
    // Taken between the look-up and the insert: the same answer as when it was taken before.
    if (!(err instanceof UserExistsError) || err.what !== 'email') throw err;
    return { kind: 'created', userId: await createUser(db, { ...user, email: undefined }) };
  }
}
