import { createHash, randomBytes } from 'node:crypto';
import type { WebSession } from '../schema/database.ts';
import type { Db } from './shared.ts';

/** How long a session lives: `idleMs` after its last use, `absoluteMs` after it began, whichever is first. */
export interface WebSessionLifetime {
  idleMs: number;
  absoluteMs: number;
}

/** A session as the web layer sees it: the id is known only to the cookie and to this answer. */
export interface OpenWebSession {
  /** The secret the cookie carries (43 characters, 256 random bits). */
  id: string;
  userId: number | null;
  csrfToken: string;
  created: Date;
  lastSeen: Date;
  expiresAt: Date;
}

/** Ids longer than this are not ours; they are refused before hashing. */
const MAX_ID_LENGTH = 128;

function digest(id: string): Buffer {
  return createHash('sha256').update(id, 'utf8').digest();
}

function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}

function expiry(created: Date, now: Date, lifetime: WebSessionLifetime): Date {
  return new Date(Math.min(created.getTime() + lifetime.absoluteMs, now.getTime() + lifetime.idleMs));
}

function toOpen(id: string, row: Omit<WebSession, 'id_digest'>): OpenWebSession {
  return {
    id,
    userId: row.user_id,
    csrfToken: row.csrf_token,
    created: row.created,
    lastSeen: row.last_seen,
    expiresAt: row.expires_at,
  };
}

/** Starts a session with a fresh id and CSRF token; `userId` null for a visitor. */
export async function createWebSession(
  db: Db,
  input: { userId: number | null; lifetime: WebSessionLifetime; now?: Date },
): Promise<OpenWebSession> {
  const now = input.now ?? new Date();
  const id = randomSecret();
  const row = {
    user_id: input.userId,
    csrf_token: randomSecret(),
    created: now,
    last_seen: now,
    expires_at: expiry(now, now, input.lifetime),
  };
  await db
    .insertInto('web_sessions')
    .values({ id_digest: digest(id), ...row })
    .execute();
  return toOpen(id, row);
}

/** The session a cookie names, if it exists and has not expired at `now`. */
export async function findWebSession(
  db: Db,
  id: string,
  now: Date = new Date(),
): Promise<OpenWebSession | undefined> {
  if (id === '' || id.length > MAX_ID_LENGTH) return undefined;
  const row = await db
    .selectFrom('web_sessions')
    .select(['user_id', 'csrf_token', 'created', 'last_seen', 'expires_at'])
    .where('id_digest', '=', digest(id))
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row && toOpen(id, row);
}

/** Records a use of the session: its idle expiry moves on, never past the absolute one. */
export async function touchWebSession(
  db: Db,
  session: OpenWebSession,
  lifetime: WebSessionLifetime,
  now: Date = new Date(),
): Promise<OpenWebSession> {
  const expiresAt = expiry(session.created, now, lifetime);
  await db
    .updateTable('web_sessions')
    .set({ last_seen: now, expires_at: expiresAt })
    .where('id_digest', '=', digest(session.id))
    .execute();
  return { ...session, lastSeen: now, expiresAt };
}

export async function deleteWebSession(db: Db, id: string): Promise<void> {
  if (id === '' || id.length > MAX_ID_LENGTH) return;
  await db.deleteFrom('web_sessions').where('id_digest', '=', digest(id)).execute();
}

/** Ends every session of a user (after a password change, for instance). */
export async function deleteUserWebSessions(db: Db, userId: number): Promise<number> {
  const result = await db.deleteFrom('web_sessions').where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Removes the sessions that expired before `now`; returns how many. */
export async function deleteExpiredWebSessions(db: Db, now: Date = new Date()): Promise<number> {
  const result = await db.deleteFrom('web_sessions').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
