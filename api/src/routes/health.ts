import type Router from '@koa/router';
import type { AppDeps } from '../deps.ts';
import { newRouter } from '../http/router.ts';

/** Liveness and readiness in one: answers 200 when the database answers, 503 otherwise. */
export function healthRoutes(deps: AppDeps): Router {
  const router = newRouter();
  router.get('/health', async (ctx) => {
    let database = 'ok';
    try {
      await deps.checkDatabase();
    } catch (err) {
      database = `error: ${(err as Error).message}`;
    }
    ctx.status = database === 'ok' ? 200 : 503;
    ctx.body = { status: database === 'ok' ? 'ok' : 'degraded', version: deps.version, database };
  });
  return router;
}
