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
