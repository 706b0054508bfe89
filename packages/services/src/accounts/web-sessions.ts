import {
  createWebSession,
  type Db,
  deleteExpiredWebSessions,
  deleteWebSession,
  findUserById,
  findWebSession,
  type OpenWebSession,
  type PublicUser,
  touchWebSession,
  type WebSessionLifetime,
} from '@earshot/catalogue';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * A signed-in browser stays signed in for 3 days without use and 14 days at most (docs/web.md):
 * long enough not to annoy a person who comes back every few days, short enough that a forgotten
 * shared computer stops being signed in.
 */
export const SIGNED_IN_LIFETIME: WebSessionLifetime = { idleMs: 3 * DAY, absoluteMs: 14 * DAY };
/** A visitor's session only carries the sign-in form's CSRF token: two hours to fill it in. */
export const VISITOR_LIFETIME: WebSessionLifetime = { idleMs: 2 * HOUR, absoluteMs: 2 * HOUR };
/** A session's last use is written at most this often, so reading pages does not write on every request. */
const TOUCH_EVERY_MS = MINUTE;

export interface ResumedWebSession {
  session: OpenWebSession;
  /** The signed-in user; undefined for a visitor (or a user deleted since). */
  user: PublicUser | undefined;
}

function lifetimeOf(session: { userId: number | null }): WebSessionLifetime {
  return session.userId === null ? VISITOR_LIFETIME : SIGNED_IN_LIFETIME;
}

/** The live session a cookie names, with its user; its idle expiry moves on. */
export async function resumeWebSession(
  db: Db,
  id: string,
  now: Date = new Date(),
): Promise<ResumedWebSession | undefined> {
  let session = await findWebSession(db, id, now);
  if (!session) return undefined;
  if (now.getTime() - session.lastSeen.getTime() >= TOUCH_EVERY_MS) {
    session = await touchWebSession(db, session, lifetimeOf(session), now);
  }
  const user = session.userId === null ? undefined : await findUserById(db, session.userId);
  return { session, user };
}

/** A session for a visitor who is about to see a form (it holds the form's CSRF token). */
export function startVisitorSession(db: Db, now: Date = new Date()): Promise<OpenWebSession> {
  return createWebSession(db, { userId: null, lifetime: VISITOR_LIFETIME, now });
}

/**
 * The session of a user who just signed in: always a new id and a new CSRF token (the visitor's
 * session, whose id an attacker may have planted, is deleted: no session fixation). Expired rows
 * are swept here, at a moment that writes anyway.
 */
export async function startSignedInSession(
  db: Db,
  userId: number,
  previousId: string | undefined,
  now: Date = new Date(),
): Promise<OpenWebSession> {
  if (previousId) await deleteWebSession(db, previousId);
  await deleteExpiredWebSessions(db, now);
  return createWebSession(db, { userId, lifetime: SIGNED_IN_LIFETIME, now });
}

/** Signs out: the session stops existing, whoever holds its id. */
export function endWebSession(db: Db, id: string): Promise<void> {
  return deleteWebSession(db, id);
}
