import type { RequestListener } from 'node:http';
import Koa from 'koa';
import { type ApiServices, createServices } from './application/index.ts';
import type { AppDeps } from './deps.ts';
import { healthRoutes } from './framework/health.ts';
import { appendSlash } from './framework/http/append-slash.ts';
import { bodyLimitOverrides } from './framework/http/body-limits.ts';
import { trustForwardedHeaders } from './framework/http/forwarded.ts';
import { mountRoutes } from './framework/http/mount.ts';
import { allowedLinkHosts } from './framework/http/origin.ts';
import { renderer } from './framework/http/render.ts';
import { labelKoaRoutes, labelRoute, measureRequests } from './framework/http/request-metrics.ts';
import { abortOnDisconnect } from './framework/http/request-signal.ts';
import { underRequestVersion } from './framework/http/request-version.ts';
import type { AnyRoute } from './framework/http/route.ts';
import { type BodyLimitOverride, bodyLimit } from './framework/middleware/body-limit.ts';
import { cors } from './framework/middleware/cors.ts';
import { errorHandler } from './framework/middleware/errors.ts';
import { refuseNulBytes } from './framework/middleware/nul-bytes.ts';
import { requestContext } from './framework/middleware/request-context.ts';
import { requestDeadline } from './framework/middleware/request-deadline.ts';
import { securityHeaders } from './framework/middleware/security-headers.ts';
import { logUnavailable } from './framework/middleware/unavailable-log.ts';
import { soundInstanceHotPath } from './hot-path.ts';
import { legacyErrors } from './v1/legacy-errors.ts';
import { v1Routes } from './v1/router.ts';
import { v2Routes } from './v2/router.ts';
import { textSearchBody } from './v2/routes/search.ts';
import { similarSoundsBody, soundInstanceBody } from './v2/routes/sounds.ts';
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
      rateLimiter: deps.rateLimiter,
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
  app.use(appendSlash(routers, '/apiv2'));
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
    renderTextSearch: (input) => textSearchBody(services, input),
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
