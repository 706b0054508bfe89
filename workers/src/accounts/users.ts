import { type Database, createUser as insertUser } from '@earshot/catalogue';
import { ValidationError } from '@earshot/common';
import type { Kysely } from 'kysely';

export { UserExistsError } from '@earshot/catalogue';

export interface NewUser {
  username: string;
  email?: string;
  password?: string;
  moderator?: boolean;
  trusted?: boolean;
}

/**
 * Creates a user (the CLI's `users create`, the demo import): checks the input a person typed,
 * then stores it through the catalogue's one user repository (scrypt password hash included).
 */
export async function createUser(db: Kysely<Database>, user: NewUser): Promise<number> {
  const username = user.username.trim();
  if (!/^[\w.@+-]{1,150}$/.test(username)) {
    throw new ValidationError('A username has 1–150 letters, digits and the characters . @ + - _');
  }
  if (user.email && !/^[^@\s]+@[^@\s]+$/.test(user.email))
    throw new ValidationError(`"${user.email}" is not an email address.`);
  const created = await insertUser(db, {
    username,
    email: user.email,
    password: user.password,
    isModerator: user.moderator ?? false,
    isTrusted: user.trusted ?? false,
  });
  return created.id;
}
