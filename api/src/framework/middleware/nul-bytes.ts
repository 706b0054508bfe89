import { ValidationError } from '@earshot/common';
import type { Context, Next } from 'koa';

/**
 * Refuses a request whose path or query holds a NUL character (`%00`). No stored name, key or
 * value can contain one (PostgreSQL text cannot), so such a request can never match anything; left
 * to the database it fails the statement and would surface as a server error.
 */
export function refuseNulBytes() {
  return async (ctx: Context, next: Next) => {
    if (hasNul(ctx.url))
      throw new ValidationError('The request contains a NUL character (%00), which no value may hold.');
    await next();
  };
}

/** True when a URL (raw or percent-encoded) holds a NUL character. */
export function hasNul(url: string): boolean {
  return url.includes('\u0000') || /%00/i.test(url);
}

/**
 * Refuses a body parameter whose name or value holds a NUL character, for every kind of body (form,
 * JSON, multipart): the same reason as for the query string.
 */
export function refuseNulParameter(name: string, value: string): void {
  if (name.includes('\u0000') || value.includes('\u0000'))
    throw new ValidationError(`The parameter "${name}" contains a NUL character, which no value may hold.`);
}
