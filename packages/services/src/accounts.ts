import { type Db, createUser as insertUser, type NewUser } from '@earshot/catalogue';
import { ValidationError } from '@earshot/common';

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

/**
 * Sign-up from the web page (when the setting allows it): a person chooses a username, gives an
 * email address and a password. The email is required here so that sign-in by email works.
 */
export async function signUp(
  db: Db,
  input: { username: string; email: string; password: string },
): Promise<number> {
  if (input.email.trim() === '') throw new ValidationError('An email address is required.');
  if (input.password.length < MIN_PASSWORD_LENGTH)
    throw new ValidationError(`A password has at least ${MIN_PASSWORD_LENGTH} characters.`);
  return createUser(db, { username: input.username, email: input.email.trim(), password: input.password });
}
