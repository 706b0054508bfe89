import { EarshotError } from '@earshot/common';
import type { Context, Next } from 'koa';

/** Large enough for any filter (4000 characters at most) or web form with room to spare. */
export const DEFAULT_BODY_LIMIT = 256 * 1024;

/** A route whose bodies may be larger (or must be smaller) than the default. */
export interface BodyLimitOverride {
  method: string;
  path: RegExp;
  bytes: number;
}

/** The body limit in force for this request (what readers of the body enforce while streaming). */
export function bodyLimitOf(ctx: Context): number {
  const limit = (ctx.state as { bodyLimit?: unknown }).bodyLimit;
  return typeof limit === 'number' ? limit : DEFAULT_BODY_LIMIT;
}

export class BodyTooLarge extends EarshotError {
  constructor(limit: number) {
    super(`The body is larger than ${formatBytes(limit)}.`, 'body_too_large', 413);
  }
}

/**
 * Refuses a request whose declared body (Content-Length) is over the limit before a byte of it is
 * read, and closes the connection after the 413 so the client stops sending; a body without a
 * declared length (chunked) is counted by its reader (http/body-params.ts), which stops at the same
 * limit. One place decides the limit: the default, or a route's override, which routes that take
 * files get from their declaration (http/body-limits.ts).
 */
export function bodyLimit(overrides: () => readonly BodyLimitOverride[] = () => []) {
  return async (ctx: Context, next: Next) => {
    const override = overrides().find((o) => o.method === ctx.method && o.path.test(ctx.path));
    const limit = override?.bytes ?? DEFAULT_BODY_LIMIT;
    (ctx.state as { bodyLimit?: number }).bodyLimit = limit;
    const declared = ctx.request.length;
    if (declared !== undefined && declared > limit) {
      ctx.set('Connection', 'close');
      throw new BodyTooLarge(limit);
    }
    try {
      await next();
    } catch (err) {
      // A body cut short by its reader: the rest is still on its way, so do not keep the connection.
      if (err instanceof BodyTooLarge) ctx.set('Connection', 'close');
      throw err;
    }
  };
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;
  return `${Math.round(bytes / 1024)} KB`;
}
