import { EarshotError } from '@earshot/common';
import type { Context, Next } from 'koa';

/** Large enough for any filter (4000 characters at most) or web form with room to spare. */
export const DEFAULT_BODY_LIMIT = 256 * 1024;

/** A route whose bodies may be larger (or must be smaller) than the default. */
export interface BodyLimitOverride {
  method: string;
  path: RegExp;
  bytes: number;
  /**
   * What the limit is made of, as a refused client reads it after "The body is larger than"
   * (`the 1 GB 'audiofile' may hold plus 256 KB of other fields`); default the size itself.
   */
  allowance?: string;
}

/** The body limit in force for this request (what readers of the body enforce while streaming). */
export function bodyLimitOf(ctx: Context): number {
  const limit = (ctx.state as { bodyLimit?: unknown }).bodyLimit;
  return typeof limit === 'number' ? limit : DEFAULT_BODY_LIMIT;
}

/** The refusal of a body over this request's limit, worded as the route's limit is made. */
export function bodyTooLargeFor(ctx: Context): BodyTooLarge {
  const allowance = (ctx.state as { bodyLimitAllowance?: unknown }).bodyLimitAllowance;
  return new BodyTooLarge(bodyLimitOf(ctx), typeof allowance === 'string' ? allowance : undefined);
}

export class BodyTooLarge extends EarshotError {
  constructor(limit: number, allowance = formatBytes(limit)) {
    super(`The body is larger than ${allowance}.`, 'body_too_large', 413);
  }
}

/**
 * The allowance of a body that carries files: each file at its largest plus the default for the
 * text fields beside them, worded by its parts, since their sum (1 GiB + 256 KiB) is no size anyone
 * configured: `the 1 GB 'audiofile' may hold plus 256 KB of other fields`.
 */
export function filesAllowance(files: ReadonlyArray<readonly [name: string, maxBytes: number]>): {
  bytes: number;
  allowance: string;
} {
  return {
    bytes: files.reduce((n, [, maxBytes]) => n + maxBytes, DEFAULT_BODY_LIMIT),
    allowance: `${files.map(([name, maxBytes]) => `the ${formatBytes(maxBytes)} '${name}'`).join(' and ')} may hold plus ${formatBytes(DEFAULT_BODY_LIMIT)} of other fields`,
  };
}

/**
 * A size in the largest binary unit it reaches, with at most one decimal (`1 GB` for 1 GiB, `1.9 MB`
 * for 2,000,000 bytes, `256 KB`): how the API words its limits.
 */
export function formatBytes(bytes: number): string {
  const units: Array<[number, string]> = [
    [1024 ** 3, 'GB'],
    [1024 ** 2, 'MB'],
    [1024, 'KB'],
  ];
  for (const [size, unit] of units) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`;
  }
  return `${bytes} bytes`;
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
    const state = ctx.state as { bodyLimit?: number; bodyLimitAllowance?: string };
    state.bodyLimit = limit;
    state.bodyLimitAllowance = override?.allowance;
    const declared = ctx.request.length;
    if (declared !== undefined && declared > limit) {
      ctx.set('Connection', 'close');
      throw bodyTooLargeFor(ctx);
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
