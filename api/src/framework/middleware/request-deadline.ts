import type { Context, Next } from 'koa';
import { bodyLimitOf, DEFAULT_BODY_LIMIT } from './body-limit.ts';

/**
 * The total time an ordinary request may take to arrive (REQUEST_TIMEOUT_MS): a body of at most
 * the default limit that dribbles in a byte at a time must not hold a connection and a handler for
 * ever. The routes that take files (uploads, clips) are not timed so, or a slow but steady client
 * could never send a large file: every request, theirs too, is timed by idleness instead (the
 * socket's timeout, IDLE_TIMEOUT_MS, server.ts), which also covers a download's reader.
 *
 * Past the deadline the client gets a 408 with a `detail` and the connection is closed; the handler
 * still reading the body sees it end, and its own answer is dropped.
 */
export function requestDeadline(totalMs: number) {
  return async (ctx: Context, next: Next) => {
    const req = ctx.req;
    if (totalMs <= 0 || req.complete || bodyLimitOf(ctx) > DEFAULT_BODY_LIMIT) return next();
    const timer = setTimeout(() => {
      if (req.complete) return;
      const res = ctx.res;
      if (!res.headersSent) {
        const detail = `The request took longer than ${totalMs / 1000} s to arrive.`;
        res.writeHead(408, { 'Content-Type': 'application/json; charset=utf-8', Connection: 'close' });
        res.end(JSON.stringify({ detail }), () => req.socket.destroy());
      } else req.socket.destroy();
    }, totalMs);
    const done = () => clearTimeout(timer);
    req.once('end', done);
    req.once('close', done);
    try {
      await next();
    } finally {
      if (req.complete) done();
    }
  };
}
