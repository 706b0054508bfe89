import type { RequestListener } from 'node:http';
import Koa from 'koa';
import type { AppDeps } from './deps.ts';
import { soundInstanceHotPath } from './hot-path.ts';
import { bodyLimitOverrides } from './http/body-limits.ts';
import { trustForwardedHeaders } from './http/forwarded.ts';
import { mountRoutes } from './http/mount.ts';
import { allowedLinkHosts } from './http/origin.ts';
import { renderer } from './http/render.ts';
import { labelKoaRoutes, labelRoute, measureRequests } from './http/request-metrics.ts';
import { abortOnDisconnect } from './http/request-signal.ts';
import { underRequestVersion } from './http/request-version.ts';
import type { AnyRoute } from './http/route.ts';
import { type BodyLimitOverride, bodyLimit } from './middleware/body-limit.ts';
import { cors } from './middleware/cors.ts';
import { errorHandler } from './middleware/errors.ts';
import { legacyErrors } from './middleware/legacy-errors.ts';
import { refuseNulBytes } from './middleware/nul-bytes.ts';
import { requestContext } from './middleware/request-context.ts';
import { requestDeadline } from './middleware/request-deadline.ts';
import { securityHeaders } from './middleware/security-headers.ts';
import { logUnavailable } from './middleware/unavailable-log.ts';
import { healthRoutes } from './routes/health.ts';
import { similarSoundsBody, soundInstanceBody } from './routes/sounds.ts';
import { v1Routes } from './routes/v1/index.ts';
import { v2Routes } from './routes/v2.ts';
import { type ApiServices, createServices } from './services/index.ts';
import { serveStylesheet } from './web/assets.ts';
import { browseableApi } from './web/browse/browse-page.ts';
import { webUploadBodyLimit } from './web/pages/upload.ts';
import { webRoutes } from './web/routes.ts';

/** Builds the Koa application: cross-cutting middleware first, then each route group. */
export function createApp(
  deps: AppDeps,
  services: ApiServices | undefined = deps.api
    ? createServices(deps.api, deps.config.API_VARIANT)
    : undefined,
): Koa {
  const app = new Koa();
  // ctx.ip, ctx.secure, ctx.host: the forwarded values of exactly the trusted proxy hops.
  trustForwardedHeaders(app, deps.config.TRUST_PROXY);
  app.silent = true; // errors are logged by the error handler with the request id
  if (deps.metrics) app.use(labelKoaRoutes());
  app.use(requestContext(deps.logger));
  app.use(logUnavailable());
  app.use(abortOnDisconnect());
  app.use(securityHeaders());
  app.use(renderer());
  // Filled below; the browseable API reads it when it renders a page.
  let apiRoutes: readonly AnyRoute[] = [];
  if (deps.web) app.use(browseableApi({ db: deps.web.db, routes: () => apiRoutes }));
  app.use(errorHandler());
  app.use(legacyErrors());
  app.use(cors());
  app.use(refuseNulBytes());
  // The routes that take files allow larger bodies; they are known once the routes are built below.
  let bodyLimits: BodyLimitOverride[] = [];
  app.use(bodyLimit(() => bodyLimits));
  app.use(requestDeadline(deps.config.REQUEST_TIMEOUT_MS));
  const changes = deps.api?.changes;
  if (changes) app.use((_ctx, next) => underRequestVersion(changes, next));
  const routers = [healthRoutes(deps)];
  if (deps.web) {
    app.use(serveStylesheet());
    routers.push(webRoutes({ ...deps.web, api: deps.web.api ?? services, rateLimiter: deps.rateLimiter }));
  }
  if (deps.api && services) {
    const catalogue = deps.api.catalogue;
    const routes = v2Routes(services, {
      version: deps.version,
      isVisible: async (id) => (await catalogue.soundsByIds([id])).length > 0,
      oauth2: deps.oauth2,
      httpsOnly: deps.config.OAUTH2_HTTPS_ONLY,
    });
    apiRoutes = routes;
    bodyLimits = bodyLimitOverrides(routes);
    // The web upload form takes the same files as the API's upload resource.
    if (deps.web && services.writes) bodyLimits.push(webUploadBodyLimit(services.writes.maxUploadBytes));
    routers.push(
      mountRoutes(routes, {
        strategies: deps.authStrategies ?? [],
        publicUrl: deps.config.PUBLIC_URL,
        allowedHosts: allowedLinkHosts(deps.config),
        httpsOnly: deps.config.OAUTH2_HTTPS_ONLY,
        rateLimiter: deps.rateLimiter,
      }),
    );
    if (services.v1) {
      // Version 1 under /api/: its own routes over the same services, the same credentials and
      // the same per-credential limits.
      routers.push(
        mountRoutes(v1Routes(services.v1, services, { version: deps.version }), {
          strategies: deps.authStrategies ?? [],
          publicUrl: deps.config.PUBLIC_URL,
          // The same origins as version 2's (and the hot path's, which keys the cached bodies by
          // origin): without them an allowed host's version 1 links pointed at the socket address.
          allowedHosts: allowedLinkHosts(deps.config),
          httpsOnly: deps.config.OAUTH2_HTTPS_ONLY,
          rateLimiter: deps.rateLimiter,
          legacy: { keyParameter: 'api_key' },
        }),
      );
    }
  }
  for (const router of routers) {
    app.use(router.routes());
    app.use(router.allowedMethods());
  }
  return app;
}

/**
 * The node:http request listener: the application, behind the sound-instance hot path (answers
 * rendered moments ago, and version 2 sound instances read afresh, served without Koa; see
 * hot-path.ts). Both read the client's scheme and host through the one function (http/forwarded.ts).
 */
export function createRequestListener(deps: AppDeps): RequestListener {
  const listener = routedRequestListener(deps);
  return deps.metrics ? measureRequests(deps.metrics, listener) : listener;
}

function routedRequestListener(deps: AppDeps): RequestListener {
  const services = deps.api ? createServices(deps.api, deps.config.API_VARIANT) : undefined;
  const app = createApp(deps, services).callback();
  if (!services) return app;
  const hot = soundInstanceHotPath({
    trustedHops: deps.config.TRUST_PROXY,
    renderedSounds: services.renderedSounds,
    searchPages: services.searchPages,
    strategies: deps.authStrategies ?? [],
    rateLimiter: deps.rateLimiter,
    publicUrl: deps.config.PUBLIC_URL,
    allowedHosts: allowedLinkHosts(deps.config),
    logger: deps.logger,
    httpsOnly: deps.config.OAUTH2_HTTPS_ONLY,
    renderSound: (id, origin, query) => soundInstanceBody(services, id, origin, query),
    renderSimilar: (id, input) => similarSoundsBody(services, id, input),
  });
  const changes = deps.api?.changes;
  return (req, res) => {
    void underRequestVersion(changes, () =>
      hot(req, res).then(
        (served) => {
          if (!served) app(req, res);
          else labelRoute(res, 'hot path');
        },
        () => app(req, res),
      ),
    );
  };
}
