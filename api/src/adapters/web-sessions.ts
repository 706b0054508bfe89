import type { Db } from '@earshot/catalogue';
import { resumeWebSession } from '@earshot/services';
import type { ResumeSession } from '../framework/auth/session-strategy.ts';

/** The session strategy's lookup: the web layer's own session policy (idle/absolute expiry). */
export function signedInSession(db: Db): ResumeSession {
  return async (sessionId) => {
    const resumed = await resumeWebSession(db, sessionId);
    if (!resumed?.user) return undefined;
    return {
      userId: resumed.user.id,
      username: resumed.user.username,
      csrfToken: resumed.session.csrfToken,
    };
  };
}
