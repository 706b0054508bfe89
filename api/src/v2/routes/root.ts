import { z } from 'zod';
import { type AnyRoute, defineRoute } from '../../framework/http/route.ts';

const resourceSchema = z.object({
  path: z.string(),
  methods: z.array(z.string()),
  summary: z.string(),
  /** Absolute address of a resource without path parameters; null when it needs some. */
  url: z.string().nullable(),
});

/**
 * The API root: every version 2 resource (from the same route list the router and the OpenAPI
 * document use), with a link where one can be followed as is. A credential is needed, as on every
 * read resource (upstream: a token on `/apiv2/` is a 200); a signed-in browser sees it as a page.
 */
export function rootRoute(routes: () => readonly AnyRoute[]): AnyRoute {
  return defineRoute({
    method: 'GET',
    path: '/apiv2/',
    operationId: 'apiRoot',
    summary: 'The resources of the API',
    tags: ['meta'],
    auth: 'read',
    response: z.object({ resources: z.array(resourceSchema), documentation: z.string() }),
    handler: async ({ origin }) => ({
      resources: listResources(routes(), origin),
      documentation: `${origin}/apiv2/openapi.json`,
    }),
  });
}

function listResources(routes: readonly AnyRoute[], origin: string): z.input<typeof resourceSchema>[] {
  const byPath = new Map<string, z.input<typeof resourceSchema>>();
  for (const route of routes) {
    if (!route.path.startsWith('/apiv2/') || route.path === '/apiv2/') continue;
    const known = byPath.get(route.path);
    if (known) {
      if (!known.methods.includes(route.method)) known.methods.push(route.method);
      continue;
    }
    byPath.set(route.path, {
      path: route.path,
      methods: [route.method],
      summary: route.summary,
      url: route.path.includes('{') ? null : `${origin}${route.path}`,
    });
  }
  return [...byPath.values()];
}
