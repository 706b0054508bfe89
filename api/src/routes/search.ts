import { pageSchema } from '../http/pagination.ts';
import { type AnyRoute, defineRoute, type HttpMethod } from '../http/route.ts';
import { combinedSchema, soundListItem } from '../serializers/schemas.ts';
import type { ApiServices } from '../services/index.ts';
import { listRequest } from './list-request.ts';
import { combinedSearchQuery, contentSearchQuery, textSearchQuery } from './query-schemas.ts';

/**
 * Text search at `/apiv2/search/` and `/apiv2/search/text/`, content and combined search; GET and
 * POST alike (DECISIONS.md). A POST may send its parameters in the body too (form, multipart
 * without files, JSON), merged with the query string; a name in both takes the body's value.
 */
export function searchRoutes(s: ApiServices): AnyRoute[] {
  const routes: AnyRoute[] = [];
  for (const method of ['GET', 'POST'] as HttpMethod[]) {
    const suffix = method === 'GET' ? '' : 'Post';
    for (const [path, operationId] of [
      ['/apiv2/search/', 'search'],
      ['/apiv2/search/text/', 'textSearch'],
    ] as const) {
      routes.push(
        defineRoute({
          method,
          path,
          operationId: `${operationId}${suffix}`,
          summary: 'Text search (or similarity search with similar_to)',
          tags: ['search'],
          auth: 'read',
          query: textSearchQuery,
          bodyParams: method === 'POST',
          response: pageSchema(soundListItem),
          handler: (input) =>
            s.searchPages.answer(input, () =>
              s.search.text(input.query, listRequest(input, s.variant, 'search', true)),
            ),
        }),
      );
    }
    routes.push(
      defineRoute({
        method,
        path: '/apiv2/search/content/',
        operationId: `contentSearch${suffix}`,
        summary: 'Content search by descriptor target and descriptor filter (deprecated)',
        tags: ['search'],
        auth: 'read',
        query: contentSearchQuery,
        bodyParams: method === 'POST',
        response: pageSchema(soundListItem),
        handler: (input) =>
          s.searchPages.answer(input, () =>
            s.search.content(input.query, listRequest(input, s.variant, 'search', true)),
          ),
      }),
      defineRoute({
        method,
        path: '/apiv2/search/combined/',
        operationId: `combinedSearch${suffix}`,
        summary: 'Text and content search combined (deprecated)',
        tags: ['search'],
        auth: 'read',
        query: combinedSearchQuery,
        bodyParams: method === 'POST',
        response: combinedSchema,
        handler: (input) =>
          s.searchPages.answer(input, () =>
            s.search.combined(input.query, listRequest(input, s.variant, 'search', true)),
          ),
      }),
    );
  }
  return routes;
}
