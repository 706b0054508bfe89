import { type Db, findCredentialByClientId, findUserById, standingGrantedScope } from '@earshot/catalogue';
import OAuth2Server from '@node-oauth/oauth2-server';
import { type ModelClient, OAUTH2_SCOPES } from './model.ts';

/** The authorize step's query (or form) parameters, as the page received them. */
export type AuthorizationRequest = Readonly<Record<string, string | undefined>>;

/** What the authorize page should do next. */
export type AuthorizationStart =
  /** No signed-in user: show the sign-in page, then come back with the same parameters. */
  | { kind: 'sign-in' }
  /** Ask the user to grant or deny `application` access (the consent page). */
  | {
      kind: 'consent';
      application: {
        clientId: string;
        name: string;
        description: string;
        url: string;
        /** The username of the account that registered the application (undefined if it is gone). */
        owner: string | undefined;
        /** Where the answer goes (the registered redirect URL): the page lets its form lead there. */
        redirectUri: string;
      };
      scope: string[];
    }
  /** Go there (302): the code (auto-granted) or an error, with `state`. */
  | { kind: 'redirect'; redirectUrl: string }
  /** The request cannot be answered by a redirect (unknown client, foreign redirect_uri): a 400 page. */
  | { kind: 'error-page'; status: number; detail: string };

/** The outcome of grant/deny: a redirect to the application, or an error page. */
export type AuthorizationOutcome = Extract<AuthorizationStart, { kind: 'redirect' | 'error-page' }>;

/**
 * The authorize step over the library's AuthorizeHandler. The library validates the request,
 * issues the code (single use, stored by the model) and builds the redirect with `code` or
 * `error` and `state`; this adds what the library has no notion of: "not signed in yet", the
 * consent decision, and the contract's automatic grant for a pair that already holds a token (for
 * the scopes the user consented to; the consented scopes grow with each exchanged code, catalogue
 * issueTokens).
 */
export class Authorization {
  constructor(
    private readonly db: Db,
    private readonly server: OAuth2Server,
  ) {}

  async start(request: AuthorizationRequest, userId: number | undefined): Promise<AuthorizationStart> {
    // Checked before anything is shown, because the library only looks at a request while issuing
    // a code: these are the errors that must not redirect (RFC 6749 4.1.2.1).
    const credential = request.client_id
      ? await findCredentialByClientId(this.db, request.client_id)
      : undefined;
    if (credential?.status !== 'approved') {
      return { kind: 'error-page', status: 400, detail: 'Invalid client_id parameter value.' };
    }
    if (request.redirect_uri !== undefined && request.redirect_uri !== credential.redirect_uri) {
      return { kind: 'error-page', status: 400, detail: 'Mismatching redirect URI.' };
    }
    if (request.response_type !== 'code') {
      // The library turns a missing or unsupported response_type into the redirect it belongs to
      // (it checks the type before it stores a code, so no code is issued here).
      return this.run(request, userId ?? 0, true);
    }
    if (userId === undefined) return { kind: 'sign-in' };
    const requested = (request.scope ?? '').split(/\s+/).filter(Boolean);
    // No scope asks for both, as the code issued for it carries (model.ts validateScope).
    const scope = requested.length > 0 ? requested : [...OAUTH2_SCOPES];
    // The contract's automatic grant (a standing token for the pair) covers only what the user
    // consented to before: a request for more asks again, or one consent to `read` would hand the
    // application `write` without a question.
    const granted = await standingGrantedScope(this.db, credential.id, userId);
    if (granted && scope.every((s) => granted.includes(s))) return this.grant(userId, request);
    return {
      kind: 'consent',
      application: {
        clientId: credential.client_id,
        name: credential.name,
        description: credential.description,
        url: credential.url,
        owner: (await findUserById(this.db, credential.user_id))?.username,
        redirectUri: credential.redirect_uri,
      },
      scope,
    };
  }

  grant(userId: number, request: AuthorizationRequest): Promise<AuthorizationOutcome> {
    return this.run(request, userId, true);
  }

  deny(request: AuthorizationRequest): Promise<AuthorizationOutcome> {
    return this.run(request, 0, false);
  }

  private async run(
    request: AuthorizationRequest,
    userId: number,
    allowed: boolean,
  ): Promise<AuthorizationOutcome> {
    const query: Record<string, string> = {};
    for (const [key, value] of Object.entries(request)) if (value !== undefined) query[key] = value;
    query.allowed = allowed ? 'true' : 'false';
    const req = new OAuth2Server.Request({ method: 'GET', headers: {}, query, body: {} });
    const res = new OAuth2Server.Response({ headers: {} });
    try {
      await this.server.authorize(req, res, { authenticateHandler: { handle: () => ({ id: userId }) } });
    } catch (err) {
      const location = res.get('location');
      if (location) return { kind: 'redirect', redirectUrl: location };
      const e = err as OAuth2Server.OAuthError;
      if (e instanceof OAuth2Server.OAuthError && e.code < 500) {
        return { kind: 'error-page', status: 400, detail: e.message };
      }
      throw err;
    }
    return { kind: 'redirect', redirectUrl: res.get('location') };
  }
}

export type { ModelClient };
