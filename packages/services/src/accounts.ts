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
