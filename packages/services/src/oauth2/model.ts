import {
  checkAccessToken,
  consumeGrant,
  createGrant,
  credentialSecretMatches,
  type Db,
  findCredentialByClientId,
  findGrant,
  findRefreshToken,
  issueTokens,
  revokeOnRefreshReuse,
  rotateRefreshToken,
} from '@earshot/catalogue';
import OAuth2Server from '@node-oauth/oauth2-server';

/** The contract's scopes; a request without `scope` gets both, as the original service does. */
export const OAUTH2_SCOPES = ['read', 'write'] as const;

/** What the model hands the library as a client: the library reads `id`, `grants`, `redirectUris`. */
export interface ModelClient extends OAuth2Server.Client {
  id: string;
  credentialId: number;
  name: string;
}

export interface ModelUser extends OAuth2Server.User {
  id: number;
}

/** A new pair from a refresh: stored in place of the pair whose refresh token `rotates` names. */
export interface RotatedToken extends OAuth2Server.Token {
  rotates?: string;
}

export type OAuth2Model = OAuth2Server.AuthorizationCodeModel &
  OAuth2Server.RefreshTokenModel & {
    /** After an unknown refresh token: revokes its pair when it is one the pair already rotated away. */
    revokeOnReuse(refreshToken: string, client: OAuth2Server.Client): Promise<boolean>;
  };

export interface ModelOptions {
  db: Db;
  /** The service's clock; expiry is decided by it, not by the library's `new Date()`. */
  now: () => Date;
  /**
   * The token endpoint checks `client_secret` (the contract requires it); the authorize step asks
   * for the client by id alone.
   */
  checkSecret: boolean;
}

/**
 * @node-oauth/oauth2-server's storage model over the catalogue. The library runs the flows
 * (parameter checks, redirect building, PKCE, scope and client checks, single-use codes through
 * revokeAuthorizationCode; refresh rotation is RefreshGrant's, through saveToken); the catalogue stores and decides
 * expiry with the service's clock, so tests can move time. Dates handed back to the library are
 * translated onto its wall clock, where it compares them with `new Date()`.
 */
export function catalogueModel({ db, now, checkSecret }: ModelOptions): OAuth2Model {
  const onWallClock = (d: Date) => new Date(d.getTime() - (now().getTime() - Date.now()));
  const scopeList = (scope: string) => scope.split(' ').filter(Boolean);

  return {
    async getClient(clientId: string, clientSecret: string | null | undefined) {
      const credential = await findCredentialByClientId(db, clientId);
      if (credential?.status !== 'approved') return false;
      if (checkSecret && !(clientSecret && credentialSecretMatches(credential, clientSecret))) return false;
      const client: ModelClient = {
        id: credential.client_id,
        credentialId: credential.id,
        name: credential.name,
        grants: ['authorization_code', 'refresh_token'],
        redirectUris: [credential.redirect_uri],
      };
      return client;
    },

    async validateScope(_user, _client, scope) {
      if (!scope || scope.length === 0) return [...OAUTH2_SCOPES];
      const known = new Set<string>(OAUTH2_SCOPES);
      return scope.every((s) => known.has(s)) ? [...new Set(scope)] : false;
    },

    async saveAuthorizationCode(code, client, user) {
      const c = client as ModelClient;
      await createGrant(db, {
        code: code.authorizationCode,
        credentialId: c.credentialId,
        userId: (user as ModelUser).id,
        redirectUri: code.redirectUri,
        scope: (code.scope ?? []).join(' '),
        codeChallenge: code.codeChallenge,
        codeChallengeMethod: code.codeChallengeMethod as 'S256' | 'plain' | undefined,
        now: now(),
      });
      return { ...code, client, user };
    },

    async getAuthorizationCode(code: string) {
      const grant = await findGrant(db, code, now());
      if (!grant) return false; // unknown, used or expired: the library's invalid_grant
      return {
        authorizationCode: code,
        expiresAt: onWallClock(grant.expires_at),
        redirectUri: grant.redirect_uri,
        scope: scopeList(grant.scope),
        codeChallenge: grant.code_challenge ?? undefined,
        codeChallengeMethod: grant.code_challenge_method ?? undefined,
        client: { id: grant.client_id, credentialId: grant.credential_id, grants: [] },
        user: { id: grant.user_id },
      };
    },

    async revokeAuthorizationCode(code) {
      const credentialId = (code.client as ModelClient).credentialId;
      return (await consumeGrant(db, code.authorizationCode, credentialId, now())) !== undefined;
    },

    async saveToken(token: RotatedToken, client, user) {
      const c = client as ModelClient;
      const scope = (token.scope ?? []).join(' ');
      let row: Awaited<ReturnType<typeof issueTokens>>;
      if (token.rotates !== undefined) {
        // A refresh (RefreshGrant): the old pair is replaced in the same statement that retires it.
        const outcome = await rotateRefreshToken(db, {
          refreshToken: token.rotates,
          credentialId: c.credentialId,
          scope,
          accessToken: token.accessToken,
          newRefreshToken: token.refreshToken,
          now: now(),
        });
        if (outcome.status !== 'rotated') {
          throw new OAuth2Server.InvalidGrantError('Invalid grant: refresh token is invalid');
        }
        row = outcome.token;
      } else {
        row = await issueTokens(db, {
          credentialId: c.credentialId,
          userId: (user as ModelUser).id,
          scope,
          accessToken: token.accessToken,
          refreshToken: token.refreshToken,
          now: now(),
        });
      }
      return {
        accessToken: token.accessToken,
        accessTokenExpiresAt: onWallClock(row.expires_at),
        refreshToken: token.refreshToken,
        scope: token.scope,
        client,
        user,
      };
    },

    async getRefreshToken(refreshToken: string) {
      const row = await findRefreshToken(db, refreshToken);
      if (!row) return false;
      // Refresh tokens never expire (the original's DOT default); revocation ends them.
      return {
        refreshToken,
        scope: scopeList(row.scope),
        client: { id: row.client_id, credentialId: row.credential_id, grants: [] },
        user: { id: row.user_id },
      };
    },

    // Required by the library's types; a refresh rotates in saveToken (RefreshGrant), in one step.
    async revokeToken() {
      return false;
    },

    async revokeOnReuse(refreshToken: string, client: OAuth2Server.Client) {
      return revokeOnRefreshReuse(db, refreshToken, (client as ModelClient).credentialId, now());
    },

    // Required by the library's types; bearer requests are checked by the API's strategy instead.
    async getAccessToken(accessToken: string) {
      const check = await checkAccessToken(db, accessToken, now());
      if (check.status !== 'valid') return false;
      return {
        accessToken,
        accessTokenExpiresAt: onWallClock(check.token.expires_at),
        scope: scopeList(check.token.scope),
        client: { id: check.token.client_id, grants: [] },
        user: { id: check.token.user_id },
      };
    },
  } as OAuth2Model;
}
