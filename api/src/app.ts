import Koa from 'koa';
import type { AppDeps } from './deps.ts';
import { mountRoutes } from './http/mount.ts';
import { renderer } from './http/render.ts';
import { cors } from './middleware/cors.ts';
import { errorHandler } from './middleware/errors.ts';
import { requestContext } from './middleware/request-context.ts';
import { healthRoutes } from './routes/health.ts';
import { v2Routes } from './routes/v2.ts';
import { createServices } from './services/index.ts';

/** Builds the Koa application: cross-cutting middleware first, then each route group. */
export function createApp(deps: AppDeps): Koa {
  const app = new Koa();
  app.proxy = deps.config.TRUST_PROXY;
  app.silent = true; // errors are logged by the error handler with the request id
  app.use(requestContext(deps.logger));
  app.use(renderer());
  app.use(errorHandler());
  app.use(cors());
  const routers = [healthRoutes(deps)];
  if (deps.api) {
    const services = createServices(deps.api, deps.config.API_VARIANT);
    const catalogue = deps.api.catalogue;
    const routes = v2Routes(services, {
      version: deps.version,
      isVisible: async (id) => (await catalogue.soundsByIds([id])).length > 0,
    });
    routers.push(
      mountRoutes(routes, { strategies: deps.authStrategies ?? [], publicUrl: deps.config.PUBLIC_URL }),
    );
  }
  for (const router of routers) {
    app.use(router.routes());
    app.use(router.allowedMethods());
  }
  return app;
}
