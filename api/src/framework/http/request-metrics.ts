import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Middleware } from 'koa';

/** Where a request's duration goes (adapters/metrics.ts records it for /metrics). */
export interface RequestObserver {
  observeRequest(route: string, method: string, status: number, seconds: number): void;
}

/** The route pattern that answered each response; set by whichever layer served it. */
const routes = new WeakMap<ServerResponse, string>();

/** Names the route that serves `res` (its pattern, e.g. `/apiv2/sounds/:id/`). */
export function labelRoute(res: ServerResponse, route: string): void {
  routes.set(res, route);
}

/**
 * Times every request from its arrival to the end of its response and records it under the route
 * pattern that served it; a path no route matched is `unmatched`, so a scan of random paths cannot
 * grow the label set.
 */
export function measureRequests(metrics: RequestObserver, listener: RequestListener): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const start = process.hrtime.bigint();
    res.once('close', () => {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      metrics.observeRequest(
        routes.get(res) ?? 'unmatched',
        methodLabel(req.method),
        res.statusCode,
        seconds,
      );
    });
    listener(req, res);
  };
}

/** Koa middleware: after the routers ran, the pattern of the route that matched (koa-router's). */
export function labelKoaRoutes(): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
      if (typeof matched === 'string') labelRoute(ctx.res, matched);
    }
  };
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Unknown methods share one label: a client cannot invent label values. */
function methodLabel(method: string | undefined): string {
  return method && METHODS.has(method) ? method : 'other';
}
