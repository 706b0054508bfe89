import { timingSafeEqual } from 'node:crypto';
import type { Config } from '@earshot/common';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { newRouter } from './http/router.ts';
import { noteUnavailable, unavailableCause } from './middleware/unavailable-log.ts';

/** What the operator's endpoints read: the parts of the application's dependencies they need. */
export interface HealthDeps {
  config: Pick<Config, 'METRICS_TOKEN' | 'TRUST_PROXY'>;
  version: string;
  /** Resolves when the database answers a trivial query. */
  checkDatabase: () => Promise<void>;
  /** What /ready checks besides the database; an absent check is not part of readiness. */
  readiness?: {
    redis?: () => boolean;
    similarity?: () => boolean;
    processes?: () => boolean;
    searchIndex?: () => boolean;
  };
  /** The Prometheus text /metrics serves; absent = no /metrics. */
  metrics?: { render(): Promise<{ contentType: string; body: string }> };
}

/**
 * The operator's endpoints: `/health` (alive: 200 while the process runs), `/ready` (the database,
 * Redis when configured, the similarity indexes and, under `serve --processes N`, the other
 * processes of the host: 503 naming what is not ready; `text_search` says whether text searches
 * are answered by the index yet) and `/metrics`
 * (Prometheus text, for loopback peers or holders of METRICS_TOKEN; see docs/security.md).
 */
export function healthRoutes(deps: HealthDeps): Router {
  const router = newRouter();
  router.get('/health', (ctx) => {
    // Liveness only: a database outage must not make an orchestrator kill a process that would
    // recover by itself; /ready says whether to send it traffic.
    ctx.body = { status: 'ok', version: deps.version };
  });
  router.get('/ready', async (ctx) => {
    const checks: Record<string, 'ok' | 'unavailable' | 'loading'> = {};
    let databaseError: unknown;
    try {
      await deps.checkDatabase();
      checks.database = 'ok';
    } catch (err) {
      checks.database = 'unavailable';
      databaseError = err;
    }
    const { redis, similarity, processes } = deps.readiness ?? {};
    if (redis) checks.redis = redis() ? 'ok' : 'unavailable';
    if (similarity) checks.similarity = similarity() ? 'ok' : 'loading';
    if (processes) checks.processes = processes() ? 'ok' : 'loading';
    const notReady = Object.keys(checks).filter((name) => checks[name] !== 'ok');
    // Not a check: text search answers the same from the database while the index builds.
    const searchIndex = deps.readiness?.searchIndex;
    const serving = searchIndex ? { text_search: searchIndex() ? 'index' : 'database (index building)' } : {};
    ctx.status = notReady.length === 0 ? 200 : 503;
    // The reason is for operators (the 503's log line), never for whoever asks a public endpoint.
    if (notReady.length > 0) {
      const db = databaseError === undefined ? undefined : unavailableCause(databaseError);
      noteUnavailable(ctx, {
        message: `not ready: ${notReady.join(', ')}${db ? ` (database: ${db.message})` : ''}`,
        code: db?.code,
      });
    }
    ctx.body = {
      status: notReady.length === 0 ? 'ready' : 'not ready',
      ...(notReady.length > 0 ? { detail: `Not ready: ${notReady.join(', ')}.` } : {}),
      version: deps.version,
      checks,
      ...serving,
    };
  });
  const metrics = deps.metrics;
  if (metrics) {
    router.get('/metrics', async (ctx) => {
      if (!mayReadMetrics(ctx, deps)) {
        ctx.status = 403;
        ctx.body = {
          detail: 'Metrics are served to loopback clients or with the METRICS_TOKEN bearer token.',
        };
        return;
      }
      const { contentType, body } = await metrics.render();
      ctx.type = contentType;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = body;
    });
  }
  return router;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/**
 * A scraper on the same host reads /metrics freely; from elsewhere it shows the METRICS_TOKEN.
 * Behind a proxy (TRUST_PROXY) every request arrives from the proxy, often on loopback, so there
 * only the token opens it.
 */
function mayReadMetrics(ctx: Context, deps: HealthDeps): boolean {
  const token = deps.config.METRICS_TOKEN;
  const auth = ctx.get('authorization');
  if (token && auth.startsWith('Bearer ')) {
    const given = Buffer.from(auth.slice('Bearer '.length));
    const wanted = Buffer.from(token);
    if (given.length === wanted.length && timingSafeEqual(given, wanted)) return true;
  }
  return !deps.config.TRUST_PROXY && LOOPBACK.has(ctx.req.socket.remoteAddress ?? '');
}
