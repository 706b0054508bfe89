import type { OAuth2Service } from '@earshot/services';
import type { ApiServices } from '../application/index.ts';
import type { AnyRoute } from '../framework/http/route.ts';
import type { RateLimiter } from '../framework/rate-limits/rate-limiter.ts';
import { changesRoutes } from './routes/changes.ts';
import { creditsRoutes } from './routes/credits.ts';
import { descriptorRoutes } from './routes/descriptors.ts';
import { downloadRoutes } from './routes/downloads.ts';
import { eventRoutes } from './routes/events.ts';
import { exportRoutes } from './routes/export.ts';
import { meRoutes } from './routes/me.ts';
import { mediaRoutes } from './routes/media.ts';
import { oauth2Routes } from './routes/oauth2.ts';
import { openApiRoute } from './routes/openapi.ts';
import { peopleRoutes } from './routes/people.ts';
import { rootRoute } from './routes/root.ts';
import { searchRoutes } from './routes/search.ts';
import { socialRoutes } from './routes/social.ts';
import { soundRoutes } from './routes/sounds.ts';
import { suggestRoutes } from './routes/suggest.ts';
import { uploadRoutes } from './routes/uploads.ts';

/** Every route of the version 2 API, in one list: the router and the OpenAPI document share it. */
export function v2Routes(
  services: ApiServices,
  options: {
    version: string;
    isVisible: (soundId: number) => Promise<boolean>;
    oauth2?: OAuth2Service;
    httpsOnly?: boolean;
    /** Serves `/apiv2/me/limits/` when given. */
    rateLimiter?: RateLimiter;
  },
): AnyRoute[] {
  const routes: AnyRoute[] = [
    ...searchRoutes(services),
    ...(services.suggestions ? suggestRoutes(services.suggestions) : []),
    // Before the sound routes: `upload`, `describe` and `pending_uploads` are no sound ids.
    ...(services.writes ? uploadRoutes(services.writes) : []),
    ...soundRoutes(services),
    ...peopleRoutes(services),
    ...meRoutes(services, options.rateLimiter),
    ...(services.variant === 'A' ? descriptorRoutes(services) : []),
    ...mediaRoutes(services, options.isVisible),
    ...(services.changes ? changesRoutes(services.changes, services.variant) : []),
    ...(services.exports ? exportRoutes(services.exports) : []),
    ...creditsRoutes(services.credits),
    ...(services.events ? eventRoutes(services.events) : []),
  ];
  if (services.social)
    routes.push(...socialRoutes(services, services.social), ...downloadRoutes(services.social));
  if (options.oauth2) routes.push(...oauth2Routes(options.oauth2, { httpsOnly: options.httpsOnly ?? true }));
  routes.push(
    openApiRoute(() => routes, options.version),
    rootRoute(() => routes),
  );
  return routes;
}
