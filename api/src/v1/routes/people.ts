import { z } from 'zod';
import type { LegacyServices } from '../../application/v1/index.ts';
import { idParam } from '../../framework/http/params.ts';
import { type AnyRoute, defineRoute } from '../../framework/http/route.ts';
import {
  presentV1BookmarkCategories,
  presentV1PackList,
  serializeV1Pack,
  serializeV1User,
} from '../presenters/people.ts';
import {
  v1BookmarkCategoriesSchema,
  v1PackListSchema,
  v1PackSchema,
  v1SoundPageSchema,
  v1UserSchema,
} from '../presenters/schemas.ts';
import { presentV1SoundPage, withBookmarkName } from '../presenters/sound-page.ts';
import { v1ListRequest } from './list-request.ts';
import { v1ListQuery } from './query-schemas.ts';

const userParams = z.object({ username: z.string().min(1).describe('username') });
const packParams = z.object({ pack_id: idParam });

export function v1PeopleRoutes(s: LegacyServices): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/people/{username}/',
      operationId: 'v1User',
      summary: 'A user (version 1 record)',
      tags: ['v1 people'],
      auth: 'read',
      params: userParams,
      response: v1UserSchema,
      handler: async ({ params, origin }) => serializeV1User(await s.people.user(params.username), origin),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/people/{username}/sounds/',
      operationId: 'v1UserSounds',
      summary: "A user's sounds, newest first",
      tags: ['v1 people'],
      auth: 'read',
      params: userParams,
      query: v1ListQuery,
      response: v1SoundPageSchema,
      handler: async (input) => {
        const req = v1ListRequest(input);
        return presentV1SoundPage(req, await s.people.userSounds(input.params.username, req));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/people/{username}/packs/',
      operationId: 'v1UserPacks',
      summary: "A user's packs, newest first",
      tags: ['v1 people'],
      auth: 'read',
      params: userParams,
      response: v1PackListSchema,
      handler: async ({ params, origin }) =>
        presentV1PackList(await s.people.userPacks(params.username), origin),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/people/{username}/bookmark_categories/',
      operationId: 'v1BookmarkCategories',
      summary: "A user's bookmark categories ('Uncategorized bookmarks' last, when there are any)",
      tags: ['v1 people'],
      auth: 'read',
      params: userParams,
      response: v1BookmarkCategoriesSchema,
      handler: async ({ params, origin }) =>
        presentV1BookmarkCategories(await s.people.bookmarkCategories(params.username), origin),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/people/{username}/bookmark_categories/{category}/sounds/',
      operationId: 'v1BookmarkCategorySounds',
      summary: 'The sounds of a bookmark category, each with its bookmark_name',
      tags: ['v1 people'],
      auth: 'read',
      params: userParams.extend({
        category: z.string().min(1).describe('a category id, or uncategorized'),
      }),
      query: v1ListQuery,
      response: v1SoundPageSchema,
      handler: async (input) => {
        const req = v1ListRequest(input);
        const page = await s.people.bookmarkedSounds(input.params.username, input.params.category, req);
        return presentV1SoundPage(req, page, withBookmarkName);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/packs/{pack_id}/',
      operationId: 'v1Pack',
      summary: 'A pack (version 1 record)',
      tags: ['v1 packs'],
      auth: 'read',
      params: packParams,
      response: v1PackSchema,
      handler: async ({ params, origin }) => serializeV1Pack(await s.people.pack(params.pack_id), origin),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/packs/{pack_id}/sounds/',
      operationId: 'v1PackSounds',
      summary: "A pack's sounds, newest first",
      tags: ['v1 packs'],
      auth: 'read',
      params: packParams,
      query: v1ListQuery,
      response: v1SoundPageSchema,
      handler: async (input) => {
        const req = v1ListRequest(input);
        return presentV1SoundPage(req, await s.people.packSounds(input.params.pack_id, req));
      },
    }),
  ];
}
