import Koa from 'koa';
import type { AppDeps } from './deps.ts';
import { cors } from './middleware/cors.ts';
import { errorHandler } from './middleware/errors.ts';
import { requestContext } from './middleware/request-context.ts';
import { healthRoutes } from './routes/health.ts';

/** Builds the Koa application: cross-cutting middleware first, then each route group. */
export function createApp(deps: AppDeps): Koa {
  const app = new Koa();
  app.proxy = deps.config.TRUST_PROXY;
  app.silent = true; // errors are logged by the error handler with the request id
  app.use(requestContext(deps.logger));
  app.use(errorHandler());
  app.use(cors());
  for (const router of [healthRoutes(deps)]) {
    app.use(router.routes());
    app.use(router.allowedMethods());
  }
  return app;
}
