import { z } from 'zod';
import type { ApiServices } from '../../application/index.ts';
import type { SocialService } from '../../application/social.ts';
import type { Principal } from '../../framework/auth/principal.ts';
import { bookmarkCategoryIdParam, idParam } from '../../framework/http/params.ts';
import { type AnyRoute, defineRoute } from '../../framework/http/route.ts';
import { serializeBookmarkCategory } from '../presenters/bookmark-category.ts';
import { pageSchema, presentPage, readPageQuery } from '../presenters/pagination.ts';
import { bookmarkCategorySchema, detailSchema, soundListItem } from '../presenters/schemas.ts';
import { presentSoundPage } from '../presenters/sound-presenter.ts';
import { linkBase, listRequest } from './list-request.ts';
import { plainListQuery, soundListQuery } from './query-schemas.ts';

const soundParams = z.object({ sound_id: idParam });
// The service validates the values and answers each bad field (`{"detail": {"rating": […]}}`);
// the schemas say what is taken, as text, for the OpenAPI document.
const text = (description: string) => z.string().optional().describe(description);

/** The user a write acts for (auth 'oauth2' guarantees a principal; the router checked its `write` scope). */
function writer(principal: Principal | null): number {
  return (principal as Principal).userId;
}

/** Rate, comment, bookmark (OAuth2 only, strict rate limit) and the user's bookmark categories. */
export function socialRoutes(s: ApiServices, social: SocialService): AnyRoute[] {
  const write = {
    tags: ['sounds'],
    auth: 'oauth2' as const,
    rateLimit: 'strict' as const,
    bodyParams: true,
    params: soundParams,
    response: detailSchema,
    errors: [403, 429],
  };
  return [
    defineRoute({
      ...write,
      method: 'POST',
      path: '/apiv2/sounds/{sound_id}/rate/',
      operationId: 'rateSound',
      summary: 'Rate a sound 0–5, once per user (a second rating is a 409)',
      query: z.object({ rating: text('integer from 0 to 5 inclusive (required)') }),
      errors: [...write.errors, 409],
      handler: async ({ params, query, principal }) => ({
        detail: await social.rate(writer(principal), params.sound_id, query),
      }),
    }),
    defineRoute({
      ...write,
      method: 'POST',
      path: '/apiv2/sounds/{sound_id}/comment/',
      operationId: 'commentSound',
      summary: 'Comment a sound (plain text, at most 4000 characters)',
      query: z.object({ comment: text('the comment, plain text (required)') }),
      handler: async ({ params, query, principal }) => ({
        detail: await social.comment(writer(principal), params.sound_id, query),
      }),
    }),
    defineRoute({
      ...write,
      method: 'POST',
      path: '/apiv2/sounds/{sound_id}/bookmark/',
      operationId: 'bookmarkSound',
      summary: 'Bookmark a sound; repeating it moves or renames the one bookmark',
      query: z.object({
        name: text("bookmark name (default: the sound's name; at most 128 characters)"),
        category: text('category name; an unknown one is created; none = uncategorized'),
      }),
      handler: async ({ params, query, principal }) => ({
        detail: await social.bookmark(writer(principal), params.sound_id, query),
      }),
    }),
    defineRoute({
      method: 'GET',
      path: '/apiv2/me/bookmark_categories/',
      operationId: 'myBookmarkCategories',
      summary: "The user's bookmark categories; id 0 (first) holds the uncategorized bookmarks",
      tags: ['users'],
      auth: 'oauth2',
      query: plainListQuery,
      response: pageSchema(bookmarkCategorySchema),
      errors: [403],
      handler: async (input) => {
        const page = await social.categories((input.principal as Principal).userId, {
          page: readPageQuery(input.query, 'list'),
        });
        return presentPage(linkBase(input), page, (c) => serializeBookmarkCategory(c, input.origin));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/apiv2/me/bookmark_categories/{bookmark_category_id}/sounds/',
      operationId: 'myBookmarkCategorySounds',
      summary: 'The sounds of one bookmark category, most recently bookmarked first (0: uncategorized)',
      tags: ['users'],
      auth: 'oauth2',
      params: z.object({ bookmark_category_id: bookmarkCategoryIdParam }),
      query: soundListQuery,
      response: pageSchema(soundListItem),
      errors: [403],
      handler: async (input) => {
        const req = listRequest(input, s.variant, 'list', false);
        const page = await social.categorySounds(
          (input.principal as Principal).userId,
          input.params.bookmark_category_id,
          req,
        );
        return presentSoundPage(req.links, page, req.sounds);
      },
    }),
  ];
}
