import type { Context, Next } from 'koa';

/**
 * What a 503's log line says caused it: the cause's message and code only. Never the error object
 * itself, whose fields may carry connection settings.
 */
export interface UnavailableCause {
  message: string;
  code?: string;
}

export function unavailableCause(cause: unknown): UnavailableCause {
  if (typeof cause === 'string') return { message: cause };
  // An Error, or a cause already described as { message, code }.
  const given = (cause as { message?: unknown; code?: unknown } | null)?.message;
  const message = typeof given === 'string' ? given : String(cause);
  const code = (cause as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? { message, code } : { message };
}

/** The message every 503's log line carries (the hot path's too), so an operator finds them all. */
export const UNAVAILABLE_LOG_MESSAGE = 'service unavailable (503)';

/** Records why this request is answered with a 503; logUnavailable logs it once the answer is known. */
export function noteUnavailable(ctx: Context, cause: unknown): void {
  ctx.state.unavailableCause = unavailableCause(cause);
}

/**
 * Every 503 the application answers (the database out of reach, the similarity indexes loading, a
 * search cancelled, not ready...) is logged once, at warn, with the cause its answerer noted:
 * whichever part answers, the operator sees each refusal and why. Placed right inside the request
 * context, outside every error handler, so it sees the final status.
 */
export function logUnavailable() {
  return async (ctx: Context, next: Next) => {
    await next();
    if (ctx.status !== 503) return;
    const cause = (ctx.state.unavailableCause as UnavailableCause | undefined) ?? {
      message: 'no cause recorded',
    };
    ctx.state.log?.warn({ method: ctx.method, url: ctx.originalUrl, cause }, UNAVAILABLE_LOG_MESSAGE);
  };
}
