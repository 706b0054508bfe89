import type { OpenWebSession, PublicUser } from '@earshot/catalogue';
import type { Context } from 'koa';

/** What the web layer keeps on `ctx.state` for the pages of one request. */
export interface WebState {
  /** The signed-in user, loaded from the session; undefined for a visitor. */
  user?: PublicUser;
  /** The browser's live session, if it has one. */
  webSession?: OpenWebSession;
  /** The fields of a form posted to the web layer, read once by the CSRF check. */
  form?: Record<string, string>;
  /** Session operations bound to the catalogue (session.ts). */
  sessions?: SessionControl;
}

export interface SessionControl {
  /** The browser's session, a new visitor session when it has none (the CSRF token lives there). */
  ensure(): Promise<OpenWebSession>;
  /** A new session for `userId`, replacing the current one (never reusing its id). */
  signIn(userId: number): Promise<OpenWebSession>;
  /** Ends the current session and clears the cookie. */
  signOut(): Promise<void>;
}

export function webState(ctx: Context): WebState {
  return ctx.state as WebState;
}

/** The posted form's fields (empty for a GET). */
export function formFields(ctx: Context): Record<string, string> {
  return webState(ctx).form ?? {};
}
