import OAuth2Server from '@node-oauth/oauth2-server';
import { OAUTH2_SCOPES, type OAuth2Model, type RotatedToken } from './model.ts';

/**
 * The refresh_token grant (RFC 6749 §6), in place of the library's, which revokes the presented
 * token before it looks at the requested scope: a refresh asking for a scope it cannot have then
 * answered invalid_scope having destroyed the pair. Here every check comes first (the token, its
 * application, the scope), and the pair changes in one step only when all pass; the old refresh
 * token is retired in that step, and a retired token presented again revokes the pair (§10.4).
 */
export class RefreshGrant extends OAuth2Server.AbstractGrantType {
  private readonly store: OAuth2Model;

  constructor(options: OAuth2Server.TokenOptions) {
    super(options);
    // The token handler passes its model among the options (the library's types leave it out).
    this.store = (options as { model?: unknown }).model as OAuth2Model;
  }

  async handle(request: OAuth2Server.Request, client: OAuth2Server.Client): Promise<OAuth2Server.Token> {
    const presented: unknown = request.body.refresh_token;
    if (typeof presented !== 'string' || presented === '') {
      throw new OAuth2Server.InvalidRequestError('Missing parameter: `refresh_token`');
    }
    const requested = this.getScope(request); // a malformed scope is invalid_scope, nothing changed
    const token = await this.store.getRefreshToken(presented);
    if (!token || token.client.id !== client.id) {
      if (!token) await this.store.revokeOnReuse(presented, client);
      throw new OAuth2Server.InvalidGrantError('Invalid grant: refresh token is invalid');
    }
    const scope = narrowed(requested, token.scope ?? [...OAUTH2_SCOPES]);
    const rotated: RotatedToken = {
      accessToken: await this.generateAccessToken(client, token.user, scope),
      accessTokenExpiresAt: this.getAccessTokenExpiresAt(),
      refreshToken: await this.generateRefreshToken(client, token.user, scope),
      scope,
      client,
      user: token.user,
      rotates: presented,
    };
    const saved = await this.store.saveToken(rotated, client, token.user);
    if (!saved) throw new OAuth2Server.ServerError('Server error: the new token was not stored');
    return saved;
  }
}

/** RFC 6749 §6: a refresh may ask for the granted scopes or fewer, never for more. */
function narrowed(requested: string[] | undefined, granted: string[]): string[] {
  if (!requested || requested.length === 0) return granted;
  const unknown = requested.find((s) => !granted.includes(s));
  if (unknown !== undefined) {
    throw new OAuth2Server.InvalidScopeError(
      `Invalid scope: \`${unknown}\` exceeds the scope granted to this refresh token`,
    );
  }
  return [...new Set(requested)];
}
