import { EarshotError } from '@earshot/common';

/**
 * `WWW-Authenticate` challenges (RFC 7235: every 401 names how to authenticate). The API key
 * scheme is `Token`, as the original's DRF TokenAuthentication answers; OAuth2 is RFC 6750's
 * `Bearer` with the original's realm and error descriptions.
 */
export const CHALLENGES = {
  token: 'Token realm="api"',
  bearer: 'Bearer realm="api"',
  bearerInvalid:
    'Bearer realm="api", error="invalid_token", error_description="The access token is invalid."',
  bearerExpired:
    'Bearer realm="api", error="invalid_token", error_description="The access token has expired."',
  /** A write resource asked with a token whose grant lacks `write` (RFC 6750 3.1). */
  insufficientScope:
    'Bearer realm="api", error="insufficient_scope", error_description="The access token does not grant the write scope.", scope="write"',
  /** A resource that takes an API key or a bearer token, asked without either. */
  any: 'Bearer realm="api", Token realm="api"',
} as const;

/** An error whose 401 answer carries this `WWW-Authenticate` challenge (middleware/errors.ts). */
export interface Challenging {
  challenge: string;
}

/** 401 with the wording the contract and real clients expect (`Invalid token`, `Expired token`). */
export class AuthenticationFailed extends EarshotError implements Challenging {
  constructor(
    message = 'Invalid token',
    readonly challenge: string = CHALLENGES.token,
  ) {
    super(message, 'authentication_failed', 401);
  }
}

/** 401 for a request that carries no credential to a resource that needs one. */
export class NotAuthenticated extends EarshotError implements Challenging {
  constructor(readonly challenge: string = CHALLENGES.any) {
    super('Authentication credentials were not provided.', 'not_authenticated', 401);
  }
}

/** 403 for OAuth2 over plain http (the contract: "All steps and all later requests must use https"). */
export class HttpsRequired extends EarshotError {
  constructor() {
    super('This resource requires a secure connection (https)', 'https_required', 403);
  }
}

/**
 * 403 for an unsafe request authenticated by a web session without the session's CSRF token (the
 * browseable API's forms carry it; another site's form cannot). Upstream's wording (DRF).
 */
export class CsrfFailed extends EarshotError {
  constructor() {
    super('CSRF Failed: CSRF token missing or incorrect.', 'csrf_failed', 403);
  }
}

/**
 * A token whose grant lacks the `write` scope on a write resource: 401 "Not authorized", the
 * original's status and wording (UPSTREAM-FACTS §5), with RFC 6750's `insufficient_scope`
 * challenge naming the scope it needs (every 401 carries one, RFC 7235).
 */
export class NotAuthorized extends EarshotError implements Challenging {
  readonly challenge = CHALLENGES.insufficientScope;
  constructor() {
    super('Not authorized', 'not_authorized', 401);
  }
}
