import type { ApiServices } from '../../application/index.ts';
import { type AnyRoute, defineRoute } from '../../framework/http/route.ts';
import { meSchema } from '../presenters/schemas.ts';
import { serializeMe } from '../presenters/user.ts';

/** Resources about the end user an OAuth2 token acts for. */
export function meRoutes(s: ApiServices): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/apiv2/me/',
      operationId: 'me',
      summary: 'The user the OAuth2 token acts for: the user record plus email and unique_id',
      tags: ['users'],
      auth: 'oauth2',
      response: meSchema,
      errors: [403],
      // auth 'oauth2' guarantees a bearer (or web session) principal here.
      handler: async ({ principal, origin }) =>
        serializeMe(await s.people.me((principal as { userId: number }).userId), origin),
    }),
  ];
}
