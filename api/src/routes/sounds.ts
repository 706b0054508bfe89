import { z } from 'zod';
import type { RenderedJson } from '../caches/rendered-json.ts';
import { pageSchema, readPageQuery } from '../http/pagination.ts';
import { idParam } from '../http/params.ts';
import { type AnyRoute, defineRoute } from '../http/route.ts';
import { soundInstanceKey } from '../http/sound-instance-key.ts';
import { analysisSchema, commentSchema, soundListItem, soundSchema } from '../serializers/schemas.ts';
import { selectFields } from '../serializers/sound-fields.ts';
import type { ApiServices } from '../services/index.ts';
import { listRequest } from './list-request.ts';
import { analysisQuery, plainListQuery, similarQuery, soundInstanceQuery } from './query-schemas.ts';

const soundParams = z.object({ sound_id: idParam });

/**
 * A sound instance's body: rendered moments ago, or read, rendered and remembered. The route and
 * the hot path (hot-path.ts, which answers cold instances without Koa) both answer with this.
 */
export async function soundInstanceBody(
  s: ApiServices,
  id: number,
  origin: string,
  query: z.infer<typeof soundInstanceQuery>,
): Promise<RenderedJson> {
  const key = soundInstanceKey(id, origin, query);
  const cached = s.renderedSounds.get(key);
  if (cached) return cached;
  const generation = s.renderedSounds.generation;
  const sound = await s.sounds.instance(
    id,
    origin,
    selectFields(query.fields, { variant: s.variant, kind: 'instance', allowScore: false }),
    { descriptors: query.descriptors, normalized: query.normalized === '1' },
  );
  return s.renderedSounds.remember(key, sound, generation);
}

export function soundRoutes(s: ApiServices): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/apiv2/sounds/{sound_id}/',
      operationId: 'soundInstance',
      summary: 'A sound',
      tags: ['sounds'],
      auth: 'read',
      params: soundParams,
      query: soundInstanceQuery,
      response: soundSchema,
      handler: ({ params, query, origin }) => soundInstanceBody(s, params.sound_id, origin, query),
    }),
    defineRoute({
      method: 'GET',
      path: '/apiv2/sounds/{sound_id}/analysis/',
      operationId: 'soundAnalysis',
      summary: "A sound's content descriptors",
      tags: ['sounds'],
      auth: 'read',
      params: soundParams,
      query: analysisQuery,
      response: analysisSchema,
      handler: ({ params, query }) =>
        s.sounds.analysis(params.sound_id, {
          fields: query.fields,
          descriptors: query.descriptors,
          normalized: query.normalized === '1',
        }),
    }),
    defineRoute({
      method: 'GET',
      path: '/apiv2/sounds/{sound_id}/similar/',
      operationId: 'similarSounds',
      summary: 'Sounds similar to a sound (the sound itself excluded)',
      tags: ['sounds'],
      auth: 'read',
      params: soundParams,
      query: similarQuery,
      response: pageSchema(soundListItem),
      // A page of neighbours, like a search page, is kept until the catalogue or the state changes.
      handler: (input) =>
        s.searchPages.answer(input, () =>
          s.sounds.similar(
            input.params.sound_id,
            { space: input.query.similarity_space, descriptorsFilter: input.query.descriptors_filter },
            listRequest(input, s.variant, 'search', true),
          ),
        ),
    }),
    defineRoute({
      method: 'GET',
      path: '/apiv2/sounds/{sound_id}/comments/',
      operationId: 'soundComments',
      summary: "A sound's comments, newest first",
      tags: ['sounds'],
      auth: 'read',
      params: soundParams,
      query: plainListQuery,
      response: pageSchema(commentSchema),
      handler: ({ params, query, origin, path, rawQuery }) =>
        s.sounds.comments(params.sound_id, {
          links: { origin, path, query: rawQuery },
          page: readPageQuery(query, 'list'),
        }),
    }),
  ];
}
