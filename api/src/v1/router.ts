import { z } from 'zod';
import type { LegacyServices } from '../application/v1/index.ts';
import { buildOpenApi } from '../framework/http/openapi.ts';
import { type AnyRoute, defineRoute } from '../framework/http/route.ts';
import { v1PeopleRoutes } from './routes/people.ts';
import { type RenderedAnswers, v1SoundRoutes } from './routes/sounds.ts';

/** Every route of the version 1 interface under `/api/`, and its OpenAPI document. */
export function v1Routes(
  s: LegacyServices,
  cache: RenderedAnswers,
  options: { version: string },
): AnyRoute[] {
  const routes: AnyRoute[] = [...v1SoundRoutes(s, cache), ...v1PeopleRoutes(s)];
  let document: Record<string, unknown> | undefined;
  routes.push(
    defineRoute({
      method: 'GET',
      path: '/api/openapi.json',
      operationId: 'v1OpenApi',
      summary: 'This OpenAPI 3 document (version 1)',
      tags: ['meta'],
      auth: 'public',
      response: z.record(z.string(), z.unknown()),
      handler: async ({ ctx }) => {
        document ??= buildOpenApi(routes, {
          title: 'earshot API (Freesound-compatible, version 1)',
          version: options.version,
          description:
            'The legacy interface, generated from the route definitions the server runs. Paths answer with and without the trailing slash; the API key comes as api_key (or token).',
          keyParameters: ['api_key', 'token'],
        });
        ctx.state.format = 'json';
        return document;
      },
    }),
  );
  return routes;
}
