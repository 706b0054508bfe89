import { z } from 'zod';
import type { ApiServices } from '../../application/index.ts';
import { idParam } from '../../framework/http/params.ts';
import type { RenderedJson } from '../../framework/http/rendered-json.ts';
import { type AnyRoute, defineRoute, type HandlerInput } from '../../framework/http/route.ts';
import { soundInstanceKey } from '../../framework/http/sound-instance-key.ts';
import { serializeComment } from '../presenters/comment.ts';
import { type PageEnvelope, pageSchema, presentPage, readPageQuery } from '../presenters/pagination.ts';
import {
  analysisSchema,
  commentSchema,
  type SoundJson,
  soundListItem,
  soundSchema,
} from '../presenters/schemas.ts';
import { serializeSound } from '../presenters/sound.ts';
import { selectFields, soundReads } from '../presenters/sound-fields.ts';
import { presentSoundPage } from '../presenters/sound-presenter.ts';
import { linkBase, listRequest } from './list-request.ts';
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
  const selection = selectFields(query.fields, { variant: s.variant, kind: 'instance', allowScore: false });
  const sound = await s.sounds.instance(
    id,
    soundReads(selection, { descriptors: query.descriptors, normalized: query.normalized === '1' }),
  );
  return s.renderedSounds.remember(
    key,
    serializeSound(sound, { origin, variant: s.variant, selection }),
    generation,
  );
}

/** What a page of similar sounds depends on: the route's input without the HTTP context. */
export type SimilarInput = Pick<
  HandlerInput<z.output<typeof similarQuery>, unknown>,
  'query' | 'rawQuery' | 'origin' | 'path'
>;

/**
 * A page of similar sounds, kept like a search page until the catalogue or the similarity state
 * changes. The route and the hot path (hot-path.ts) both answer with this.
 */
export async function similarSoundsBody(
  s: ApiServices,
  id: number,
  input: SimilarInput,
): Promise<RenderedJson | PageEnvelope<SoundJson>> {
  const run = async () => {
    const req = listRequest(input, s.variant, 'search', true);
    const page = await s.sounds.similar(
      id,
      { space: input.query.similarity_space, descriptorsFilter: input.query.descriptors_filter },
      req,
    );
    return presentSoundPage(req.links, page, req.sounds);
  };
  // A page of a cursor walk is not kept (see the search routes).
  return input.query.cursor === undefined ? s.searchPages.answer(input, run) : run();
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
      handler: (input) => similarSoundsBody(s, input.params.sound_id, input),
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
      handler: async (input) => {
        const page = await s.sounds.comments(input.params.sound_id, {
          page: readPageQuery(input.query, 'list'),
        });
        return presentPage(linkBase(input), page, serializeComment);
      },
    }),
  ];
}
