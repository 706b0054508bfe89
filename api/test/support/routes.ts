import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@earshot/common';
import Koa from 'koa';
import type { AuthStrategy } from '../../src/framework/auth/principal.ts';
import { trustForwardedHeaders } from '../../src/framework/http/forwarded.ts';
import { mountRoutes } from '../../src/framework/http/mount.ts';
import { renderer } from '../../src/framework/http/render.ts';
import type { AnyRoute } from '../../src/framework/http/route.ts';
import { cors } from '../../src/framework/middleware/cors.ts';
import { errorHandler } from '../../src/framework/middleware/errors.ts';
import { requestContext } from '../../src/framework/middleware/request-context.ts';
import type { RateLimiter } from '../../src/framework/rate-limits/rate-limiter.ts';

/** Serves a few route definitions through the real middleware stack, for framework tests. */
export async function serveRoutes(
  routes: AnyRoute[],
  options: {
    strategies?: AuthStrategy[];
    publicUrl?: string;
    allowedHosts?: string[];
    proxy?: boolean;
    rateLimiter?: RateLimiter;
  } = {},
): Promise<{ origin: string; close: () => Promise<void> }> {
  const app = new Koa();
  trustForwardedHeaders(app, options.proxy ? 1 : 0);
  app.silent = true;
  app.use(requestContext(createLogger('silent')));
  app.use(renderer());
  app.use(errorHandler());
  app.use(cors());
  const router = mountRoutes(routes, {
    strategies: options.strategies ?? [],
    publicUrl: options.publicUrl,
    allowedHosts: options.allowedHosts,
    rateLimiter: options.rateLimiter,
  });
  app.use(router.routes());
  app.use(router.allowedMethods());
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
