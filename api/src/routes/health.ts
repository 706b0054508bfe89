import type Router from '@koa/router';
import type { AppDeps } from '../deps.ts';
import { newRouter } from '../http/router.ts';

/** Liveness and readiness in one: answers 200 when the database answers, 503 otherwise. */
export function healthRoutes(deps: AppDeps): Router {
  const router = newRouter();
  router.get('/health', async (ctx) => {
    let up = true;
    try {
      await deps.checkDatabase();
    } catch (err) {
      // The reason is for operators (the log), never for whoever asks a public endpoint.
      up = false;
      ctx.state.log?.error({ err }, 'health check: the database does not answer');
    }
    ctx.status = up ? 200 : 503;
    ctx.body = { status: up ? 'ok' : 'degraded', version: deps.version, database: up ? 'ok' : 'unavailable' };
  });
  return router;
}
