import { z } from 'zod';
import type { ApiServices } from '../../application/index.ts';
import { idParam } from '../../framework/http/params.ts';
import { type AnyRoute, defineRoute } from '../../framework/http/route.ts';
import { serializePack } from '../presenters/pack.ts';
import { pageSchema, presentPage, readPageQuery } from '../presenters/pagination.ts';
import { packSchema, soundListItem, userSchema } from '../presenters/schemas.ts';
import { presentSoundPage } from '../presenters/sound-presenter.ts';
import { serializeUser } from '../presenters/user.ts';
import { linkBase, listRequest } from './list-request.ts';
import { plainListQuery, soundListQuery } from './query-schemas.ts';

const userParams = z.object({ username: z.string().min(1).describe('username') });
const packParams = z.object({ pack_id: idParam });

export function peopleRoutes(s: ApiServices): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/apiv2/users/{username}/',
      operationId: 'user',
      summary: 'A user',
      tags: ['users'],
      auth: 'read',
      params: userParams,
      response: userSchema,
      handler: async ({ params, origin }) => serializeUser(await s.people.user(params.username), origin),
    }),
    defineRoute({
      method: 'GET',
      path: '/apiv2/users/{username}/sounds/',
      operationId: 'userSounds',
      summary: "A user's sounds, newest first",
      tags: ['users'],
      auth: 'read',
      params: userParams,
      query: soundListQuery,
      response: pageSchema(soundListItem),
      handler: async (input) => {
        const req = listRequest(input, s.variant, 'list', false);
        return presentSoundPage(req.links, await s.people.userSounds(input.params.username, req), req.sounds);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/apiv2/users/{username}/packs/',
      operationId: 'userPacks',
      summary: "A user's packs, newest first",
      tags: ['users'],
      auth: 'read',
      params: userParams,
      query: plainListQuery,
      response: pageSchema(packSchema),
      handler: async (input) => {
        const page = await s.people.userPacks(input.params.username, {
          page: readPageQuery(input.query, 'list'),
        });
        return presentPage(linkBase(input), page, (pack) => serializePack(pack, input.origin));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/apiv2/packs/{pack_id}/',
      operationId: 'pack',
      summary: 'A pack',
      tags: ['packs'],
      auth: 'read',
      params: packParams,
      response: packSchema,
      handler: async ({ params, origin }) => serializePack(await s.people.pack(params.pack_id), origin),
    }),
    defineRoute({
      method: 'GET',
      path: '/apiv2/packs/{pack_id}/sounds/',
      operationId: 'packSounds',
      summary: "A pack's sounds, newest first",
      tags: ['packs'],
      auth: 'read',
      params: packParams,
      query: soundListQuery,
      response: pageSchema(soundListItem),
      handler: async (input) => {
        const req = listRequest(input, s.variant, 'list', false);
        return presentSoundPage(req.links, await s.people.packSounds(input.params.pack_id, req), req.sounds);
      },
    }),
  ];
}
