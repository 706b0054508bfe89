import type { Db, OpenWebSession } from '@earshot/catalogue';
import {
  endWebSession,
  resumeWebSession,
  SIGNED_IN_LIFETIME,
  startSignedInSession,
  startVisitorSession,
} from '@earshot/services';
import type { Context, Next } from 'koa';
import { SESSION_COOKIE } from '../framework/auth/session-strategy.ts';
import { type SessionControl, webState } from './state.ts';

/**
 * Loads the browser's session from its cookie (`ctx.state.webSession`, `ctx.state.user`) and
 * puts the session operations on `ctx.state.sessions`. A cookie naming no live session is cleared.
 */
export function webSessions(db: Db) {
  return async (ctx: Context, next: Next) => {
    const state = webState(ctx);
    const id = ctx.cookies.get(SESSION_COOKIE);
    if (id) {
      const resumed = await resumeWebSession(db, id);
      if (resumed) {
        state.webSession = resumed.session;
        state.user = resumed.user;
      } else {
        clearCookie(ctx);
      }
    }
    state.sessions = control(ctx, db);
    await next();
  };
}

function control(ctx: Context, db: Db): SessionControl {
  const state = webState(ctx);
  return {
    async ensure() {
      if (state.webSession) return state.webSession;
      state.webSession = await startVisitorSession(db);
      setCookie(ctx, state.webSession);
      return state.webSession;
    },
    async signIn(userId) {
      state.webSession = await startSignedInSession(db, userId, state.webSession?.id);
      setCookie(ctx, state.webSession);
      return state.webSession;
    },
    async signOut() {
      if (state.webSession) await endWebSession(db, state.webSession.id);
      state.webSession = undefined;
      state.user = undefined;
      clearCookie(ctx);
    },
  };
}

/**
 * HttpOnly (scripts never see it), SameSite=Lax (other sites' forms do not carry it), Secure when
 * the request came over https (ctx.secure: X-Forwarded-Proto decides when TRUST_PROXY is set).
 * A signed-in session's cookie lasts until the session's absolute expiry; a visitor's is
 * a browser-session cookie.
 */
function setCookie(ctx: Context, session: OpenWebSession): void {
  ctx.cookies.set(SESSION_COOKIE, session.id, {
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.secure,
    path: '/',
    overwrite: true,
    // The row's idle expiry ends it sooner when unused; the cookie only needs to outlive the row.
    ...(session.userId === null
      ? {}
      : { expires: new Date(session.created.getTime() + SIGNED_IN_LIFETIME.absoluteMs) }),
  });
}

function clearCookie(ctx: Context): void {
  ctx.cookies.set(SESSION_COOKIE, '', {
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.secure,
    path: '/',
    overwrite: true,
    expires: new Date(0),
  });
}
