import { randomUUID } from 'node:crypto';
import type { Logger } from '@earshot/common';
import type { Context, Next } from 'koa';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The client's X-Request-Id when it is sane, else a new UUID. */
export function requestIdFrom(incoming: string | undefined): string {
  return incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/**
 * `ctx.state` of every request: its id and a logger carrying it. The child logger is only made
 * when something logs through it (most requests never do); making one per request showed in the
 * profile of the sound-instance route.
 */
class RequestState {
  private child: Logger | undefined;
  [key: string]: unknown;

  constructor(
    private readonly logger: Logger,
    readonly requestId: string,
  ) {}

  get log(): Logger {
    this.child ??= this.logger.child({ reqId: this.requestId });
    return this.child;
  }
}

/**
 * Gives every request an id (the client's X-Request-Id when it is sane, else a new UUID) and a
 * logger carrying it, so every log line of the request can be found together; logs one line per
 * request, skipped without being built when `info` is off.
 */
export function requestContext(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    const requestId = requestIdFrom(ctx.get('X-Request-Id'));
    ctx.state = new RequestState(logger, requestId);
    ctx.set('X-Request-Id', requestId);
    if (!logger.isLevelEnabled('info')) return next();
    const started = performance.now();
    try {
      await next();
    } finally {
      const ms = Math.round((performance.now() - started) * 10) / 10;
      logger.info(
        { reqId: requestId, method: ctx.method, url: ctx.originalUrl, status: ctx.status, ms },
        'request',
      );
    }
  };
}
