import { EarshotError } from '@earshot/common';

/** 401 with the wording the contract and real clients expect (`Invalid token`, `Expired token`). */
export class AuthenticationFailed extends EarshotError {
  constructor(message = 'Invalid token') {
    super(message, 'authentication_failed', 401);
  }
}

/** 401 for a request that carries no credential to a resource that needs one. */
export class NotAuthenticated extends EarshotError {
  constructor() {
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

/** 401 for a token whose grant lacks the `write` scope on a write resource (upstream's wording). */
export class NotAuthorized extends EarshotError {
  constructor() {
    super('Not authorized', 'not_authorized', 401);
  }
}
