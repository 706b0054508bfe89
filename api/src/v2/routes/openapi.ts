import { z } from 'zod';
import { buildOpenApi } from '../../framework/http/openapi.ts';
import { type AnyRoute, defineRoute } from '../../framework/http/route.ts';

/** Serves the OpenAPI document of `routes` (this route included), built once on first request. */
export function openApiRoute(routes: () => readonly AnyRoute[], version: string): AnyRoute {
  let document: Record<string, unknown> | undefined;
  return defineRoute({
    method: 'GET',
    path: '/apiv2/openapi.json',
    operationId: 'openApi',
    summary: 'This OpenAPI 3 document',
    tags: ['meta'],
    auth: 'public',
    response: z.record(z.string(), z.unknown()),
    handler: async ({ ctx }) => {
      document ??= buildOpenApi(routes(), {
        title: 'earshot API (Freesound-compatible, version 2)',
        version,
        description: 'Generated from the route definitions the server runs.',
      });
      ctx.state.format = 'json';
      return document;
    },
  });
}
