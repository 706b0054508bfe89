import type { Database } from '@earshot/catalogue';
import { EarshotError, ValidationError } from '@earshot/common';
import type { Kysely } from 'kysely';
import { hashPassword } from './password.ts';

export interface NewUser {
  username: string;
  email?: string;
  password?: string;
  moderator?: boolean;
  trusted?: boolean;
}

export class UserExistsError extends EarshotError {
  constructor(username: string) {
    super(`A user named "${username}" already exists.`, 'user_exists', 409);
  }
}

/** Creates a user (the CLI's `users create`, the demo import). */
export async function createUser(db: Kysely<Database>, user: NewUser): Promise<number> {
  const username = user.username.trim();
  if (!/^[\w.@+-]{1,150}$/.test(username)) {
    throw new ValidationError('A username has 1–150 letters, digits and the characters . @ + - _');
  }
  if (user.email && !/^[^@\s]+@[^@\s]+$/.test(user.email))
    throw new ValidationError(`"${user.email}" is not an email address.`);
  const taken = await db
    .selectFrom('users')
    .select('id')
    .where((eb) => eb(eb.fn('lower', ['username']), '=', username.toLowerCase()))
    .executeTakeFirst();
  if (taken) throw new UserExistsError(username);
  const row = await db
    .insertInto('users')
    .values({
      username,
      email: user.email ?? '',
      password_hash: user.password ? await hashPassword(user.password) : null,
      avatar_path: null,
      is_moderator: user.moderator ?? false,
      is_trusted: user.trusted ?? false,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
