import { EarshotError } from '@earshot/common';
import { type RawBuilder, sql } from 'kysely';
import type { User } from '../schema/database.ts';
import type { GenAiPreference } from '../schema/gen-ai-preference.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { type Db, isUniqueViolation } from './shared.ts';
import { publicSoundSql } from './sounds.ts';

/** A user as other code sees it: the password hash stays in this file. */
export type PublicUser = Omit<User, 'password_hash'>;

export interface NewUser {
  username: string;
  email?: string;
  /** Omit for accounts that never log in with a password. */
  password?: string;
  about?: string;
  homepage?: string;
  isModerator?: boolean;
  isTrusted?: boolean;
}

export class UserExistsError extends EarshotError {
  constructor(
    readonly what: 'username' | 'email',
    value: string,
  ) {
    super(`a user with the ${what} "${value}" already exists`, 'user_exists', 409);
  }
}

const publicColumns = [
  'id',
  'username',
  'email',
  'about',
  'homepage',
  'signature',
  'avatar_path',
  'date_joined',
  'is_moderator',
  'is_trusted',
  'gen_ai_preference',
  'gen_ai_speech_opt_out',
] as const;

export async function createUser(db: Db, input: NewUser): Promise<PublicUser> {
  try {
    return await db
      .insertInto('users')
      .values({
        username: input.username,
        email: input.email ?? '',
        password_hash: input.password === undefined ? null : await hashPassword(input.password),
        about: input.about ?? '',
        homepage: input.homepage ?? '',
        avatar_path: null,
        is_moderator: input.isModerator ?? false,
        is_trusted: input.isTrusted ?? false,
      })
      .returning(publicColumns)
      .executeTakeFirstOrThrow();
  } catch (err) {
    if (isUniqueViolation(err, 'users_username_lower_idx'))
      throw new UserExistsError('username', input.username);
    if (isUniqueViolation(err, 'users_email_lower_idx'))
      throw new UserExistsError('email', input.email ?? '');
    throw err;
  }
}

export function findUserById(db: Db, id: number): Promise<PublicUser | undefined> {
  return db.selectFrom('users').select(publicColumns).where('id', '=', id).executeTakeFirst();
}

/** Usernames match case-insensitively, as upstream's lookups do. */
export function findUserByName(db: Db, username: string): Promise<PublicUser | undefined> {
  return db
    .selectFrom('users')
    .select(publicColumns)
    .where(sql`lower(username)`, '=', username.toLowerCase())
    .executeTakeFirst();
}

export function findUserByEmail(db: Db, email: string): Promise<PublicUser | undefined> {
  if (email === '') return Promise.resolve(undefined);
  return db
    .selectFrom('users')
    .select(publicColumns)
    .where(sql`lower(email)`, '=', email.toLowerCase())
    .executeTakeFirst();
}

/** The user whose username or email is `login` and whose password is `password`; else undefined. */
export async function authenticateUser(
  db: Db,
  login: string,
  password: string,
): Promise<PublicUser | undefined> {
  const row = await db
    .selectFrom('users')
    .select([...publicColumns, 'password_hash'])
    .where((eb) =>
      eb.or([
        eb(sql`lower(username)`, '=', login.toLowerCase()),
        eb.and([eb('email', '<>', ''), eb(sql`lower(email)`, '=', login.toLowerCase())]),
      ]),
    )
    .executeTakeFirst();
  // An unknown login is checked against no hash, which costs the same derivation as a real one.
  if (!(await verifyPassword(password, row?.password_hash ?? null)) || !row) return undefined;
  const { password_hash: _hash, ...user } = row;
  return user;
}

export async function setUserPassword(db: Db, userId: number, password: string): Promise<void> {
  await db
    .updateTable('users')
    .set({ password_hash: await hashPassword(password) })
    .where('id', '=', userId)
    .execute();
}

export async function setUserRoles(
  db: Db,
  userId: number,
  roles: { isModerator?: boolean; isTrusted?: boolean },
): Promise<void> {
  const set: { is_moderator?: boolean; is_trusted?: boolean } = {};
  if (roles.isModerator !== undefined) set.is_moderator = roles.isModerator;
  if (roles.isTrusted !== undefined) set.is_trusted = roles.isTrusted;
  if (Object.keys(set).length) await db.updateTable('users').set(set).where('id', '=', userId).execute();
}

export async function updateUserProfile(
  db: Db,
  userId: number,
  profile: { about?: string; homepage?: string; signature?: string; avatarPath?: string | null },
): Promise<void> {
  const set: { about?: string; homepage?: string; signature?: string; avatar_path?: string | null } = {};
  if (profile.about !== undefined) set.about = profile.about;
  if (profile.homepage !== undefined) set.homepage = profile.homepage;
  if (profile.signature !== undefined) set.signature = profile.signature;
  if (profile.avatarPath !== undefined) set.avatar_path = profile.avatarPath;
  if (Object.keys(set).length) await db.updateTable('users').set(set).where('id', '=', userId).execute();
}

export interface UserCounts {
  /** Public sounds (moderated and processed). */
  num_sounds: number;
  /** Public packs (holding a public sound). */
  num_packs: number;
  /** Comments the user made on other people's sounds (the contract's `num_comments`). */
  num_comments: number;
}

/**
 * The one rule for a user's counts (`UserCounts`), as scalar subqueries about the user `user`
 * stands for: a value, or a column of an outer statement such as `u.id`.
 */
export function userCountColumns(user: RawBuilder<number>) {
  return [
    sql<number>`(select count(*) from sounds s where s.user_id = ${user} and ${publicSoundSql('s')})::int`.as(
      'num_sounds',
    ),
    // Public packs only: a pack is public while it holds a public sound (packs.ts).
    sql<number>`(select count(*) from packs p where p.user_id = ${user} and exists (
        select 1 from sounds ps where ps.pack_id = p.id and ${publicSoundSql('ps')}))::int`.as('num_packs'),
    sql<number>`(select count(*) from comments c join sounds cs on cs.id = c.sound_id
        where c.user_id = ${user} and cs.user_id <> ${user})::int`.as('num_comments'),
  ];
}

export function userCounts(db: Db, userId: number): Promise<UserCounts> {
  return db.selectNoFrom(userCountColumns(sql<number>`${userId}`)).executeTakeFirstOrThrow();
}

/** A user's generative-AI preference and speech opt-out (schema/gen-ai-preference.ts). */
export async function setGenAiPreference(
  db: Db,
  userId: number,
  preference: GenAiPreference,
  speechOptOut: boolean,
): Promise<void> {
  await db
    .updateTable('users')
    .set({ gen_ai_preference: preference, gen_ai_speech_opt_out: speechOptOut })
    .where('id', '=', userId)
    .execute();
}
