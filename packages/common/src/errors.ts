/**
 * Base of every error that carries a message meant for a user (a CLI user or an API client).
 * `status` is the HTTP status the API maps it to; `code` is a stable machine-readable name.
 */
export class EarshotError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly status = 400,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class NotFoundError extends EarshotError {
  constructor(message: string, details?: unknown) {
    super(message, 'not_found', 404, details);
  }
}

export class ValidationError extends EarshotError {
  constructor(message: string, details?: unknown) {
    super(message, 'invalid', 400, details);
  }
}
