import { type AuthorizedApplication, type Db, findCredentialByClientId } from '@earshot/catalogue';
import OAuth2Server from '@node-oauth/oauth2-server';
import { authorizedApplications, revokeApplication } from './applications.ts';
import {
  Authorization,
  type AuthorizationOutcome,
  type AuthorizationRequest,
  type AuthorizationStart,
} from './authorization.ts';
import { catalogueModel } from './model.ts';
import { RefreshGrant } from './refresh-grant.ts';
import { TokenEndpoint, type TokenRequest, type TokenResponse } from './token-endpoint.ts';

/** The path of the service's own "here is your code" page (the contract's permission_granted URL). */
export const PERMISSION_GRANTED_PATH = '/home/app_permissions/permission_granted/';

export interface OAuth2ServiceOptions {
  db: Db;
  /** The clock every expiry is decided by (tests move it); default the wall clock. */
  now?: () => Date;
}

// The library's lifetimes in seconds. The catalogue decides expiry itself (10 minutes, 24 hours,
// with the service's clock); the library needs values, and compares them again on its side.
const CODE_LIFETIME_S = 600;
const ACCESS_TOKEN_LIFETIME_S = 86_400;
// Refresh tokens never expire (the original's default): the model returns them without an expiry,
// so this value is only the library's required setting.
const REFRESH_TOKEN_LIFETIME_S = 10 * 365 * 86_400;

/**
 * The OAuth2 authorization-code grant as use cases: the authorize page calls startAuthorization,
 * grant and deny; the token endpoint calls token (exchangeCode / refresh); the settings page lists
 * and revokes. See docs/api.md, "OAuth2".
 */
export class OAuth2Service {
  private readonly now: () => Date;
  private readonly authorization: Authorization;
  private readonly tokenEndpoint: TokenEndpoint;

  constructor(private readonly options: OAuth2ServiceOptions) {
    this.now = options.now ?? (() => new Date());
    const settings = {
      accessTokenLifetime: ACCESS_TOKEN_LIFETIME_S,
      refreshTokenLifetime: REFRESH_TOKEN_LIFETIME_S,
      authorizationCodeLifetime: CODE_LIFETIME_S,
      allowEmptyState: true, // `state` is optional in the contract
    };
    const authorizeServer = new OAuth2Server({
      ...settings,
      model: catalogueModel({ db: options.db, now: this.now, checkSecret: false }),
    });
    const tokenServer = new OAuth2Server({
      ...settings,
      model: catalogueModel({ db: options.db, now: this.now, checkSecret: true }),
      // Checks before it rotates, and detects a replayed refresh token (refresh-grant.ts).
      extendedGrantTypes: { refresh_token: RefreshGrant },
    });
    this.authorization = new Authorization(options.db, authorizeServer);
    this.tokenEndpoint = new TokenEndpoint(
      tokenServer,
      async (clientId) => (await findCredentialByClientId(options.db, clientId))?.redirect_uri,
    );
  }

  /** The authorize page's first call: sign in, ask, or redirect (auto-grant or error). */
  startAuthorization(request: AuthorizationRequest, userId: number | undefined): Promise<AuthorizationStart> {
    return this.authorization.start(request, userId);
  }

  /** The user granted access: a code is issued; the redirect carries `code` and `state`. */
  grant(userId: number, request: AuthorizationRequest): Promise<AuthorizationOutcome> {
    return this.authorization.grant(userId, request);
  }

  /** The user denied access: the redirect carries `error=access_denied` and `state`. */
  deny(request: AuthorizationRequest): Promise<AuthorizationOutcome> {
    return this.authorization.deny(request);
  }

  /** `POST /apiv2/oauth2/access_token/`, whatever the grant type. */
  token(request: TokenRequest): Promise<TokenResponse> {
    return this.tokenEndpoint.handle(request);
  }

  exchangeCode(params: { client_id: string; client_secret: string; code: string } & Record<string, string>) {
    return this.token({ params: { ...params, grant_type: 'authorization_code' }, form: true });
  }

  refresh(params: { client_id: string; client_secret: string; refresh_token: string }) {
    return this.token({ params: { ...params, grant_type: 'refresh_token' }, form: true });
  }

  listAuthorizedApplications(userId: number): Promise<AuthorizedApplication[]> {
    return authorizedApplications(this.options.db, userId);
  }

  revokeApplication(userId: number, clientId: string): Promise<void> {
    return revokeApplication(this.options.db, userId, clientId, this.now());
  }
}

/** True when a redirect goes to the service's own code page (applications without a web server). */
export function isPermissionGrantedUrl(redirectUrl: string): boolean {
  try {
    return new URL(redirectUrl).pathname === PERMISSION_GRANTED_PATH;
  } catch {
    return false;
  }
}

/**
 * Where the browser goes with an authorization's answer. A credential whose redirect URL is the
 * service's own code page means this service, whatever address was written when it was made (a
 * command-line credential gets `http://127.0.0.1:8000/…` unless told the server's port, or the
 * service may be reached by another name): the answer goes to that page as a path, which the browser
 * resolves against the address it reached the authorize page at. Any other redirect is kept whole.
 */
export function authorizationRedirect(redirectUrl: string): string {
  if (!isPermissionGrantedUrl(redirectUrl)) return redirectUrl;
  const url = new URL(redirectUrl);
  return `${url.pathname}${url.search}`;
}
