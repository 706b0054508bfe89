import { randomUUID } from 'node:crypto';
import type { Logger } from '@earshot/common';
import type { Context, Next } from 'koa';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Gives every request an id (the client's X-Request-Id when it is sane, else a new UUID) and a
 * logger carrying it, so every log line of the request can be found together; logs one line per
 * request. The per-request child logger is only made when something logs through it (most
 * requests never do), and the access line is skipped without being built when `info` is off:
 * both showed in the profile of the sound-instance route.
 */
export function requestContext(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    const incoming = ctx.get('X-Request-Id');
    const requestId = incoming !== '' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    let child: Logger | undefined;
    Object.defineProperty(ctx.state, 'log', {
      configurable: true,
      enumerable: true,
      get: () => {
        child ??= logger.child({ reqId: requestId });
        return child;
      },
    });
    ctx.set('X-Request-Id', requestId);
    const started = performance.now();
    try {
      await next();
    } finally {
      if (logger.isLevelEnabled('info')) {
        const ms = Math.round((performance.now() - started) * 10) / 10;
        logger.info(
          { reqId: requestId, method: ctx.method, url: ctx.originalUrl, status: ctx.status, ms },
          'request',
        );
      }
    }
  };
}
