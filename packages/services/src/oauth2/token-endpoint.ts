import OAuth2Server from '@node-oauth/oauth2-server';

/** A token endpoint answer, ready for HTTP. */
export interface TokenResponse {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

export interface TokenRequest {
  /** The form parameters (grant_type, client_id, client_secret, code, refresh_token, …). */
  params: Readonly<Record<string, string>>;
  /** The request's Authorization header, for clients that send their credentials by HTTP Basic. */
  authorization?: string;
  /** False when the body was not a form (the library refuses it with invalid_request). */
  form: boolean;
}

/**
 * `POST /apiv2/oauth2/access_token/` over the library's TokenHandler: the library checks the
 * client and secret, the grant type, the code (single use, client, redirect_uri, PKCE verifier) or
 * the refresh token (rotation), and stores the new pair through the model (one pair per
 * application/user). Three adjustments, each for the contract or the original service:
 * - a missing `redirect_uri` falls back to the credential's registered one (the original's
 *   behaviour; the library would otherwise refuse the exchange of a code issued without one);
 * - `invalid_client` is a 401, as the original answers (the library uses 400 unless the client
 *   sent HTTP Basic);
 * - error bodies also carry `detail`, as every error of this API does; `expires_in` is rounded to
 *   the second (the library floors a lifetime it measures a moment later, giving 86399).
 */
export class TokenEndpoint {
  constructor(
    private readonly server: OAuth2Server,
    private readonly registeredRedirect: (clientId: string) => Promise<string | undefined>,
  ) {}

  async handle(request: TokenRequest): Promise<TokenResponse> {
    const body: Record<string, string> = { ...request.params };
    if (body.grant_type === 'authorization_code' && !body.redirect_uri && body.client_id) {
      const registered = await this.registeredRedirect(body.client_id);
      if (registered) body.redirect_uri = registered;
    }
    const headers: Record<string, string> = {
      'content-type': request.form ? 'application/x-www-form-urlencoded' : 'application/json',
      'content-length': '1', // the library asks type-is, which wants to know a body is present
    };
    if (request.authorization) headers.authorization = request.authorization;
    const req = new OAuth2Server.Request({ method: 'POST', headers, query: {}, body });
    const res = new OAuth2Server.Response({ headers: {} });
    try {
      const token = await this.server.token(req, res);
      const out = { ...(res.body as Record<string, unknown>) };
      if (token.accessTokenExpiresAt) {
        out.expires_in = Math.round((token.accessTokenExpiresAt.getTime() - Date.now()) / 1000);
      }
      return { status: 200, headers: { 'Cache-Control': 'no-store', Pragma: 'no-cache' }, body: out };
    } catch (err) {
      if (!(err instanceof OAuth2Server.OAuthError) || err.code >= 500) throw err;
      const invalidClient = err.name === 'invalid_client';
      const responseHeaders: Record<string, string> = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
      if (invalidClient) responseHeaders['WWW-Authenticate'] = 'Basic realm="oauth2"';
      return {
        status: invalidClient ? 401 : err.code,
        headers: responseHeaders,
        body: { error: err.name, error_description: err.message, detail: err.message },
      };
    }
  }
}
