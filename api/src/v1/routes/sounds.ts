import { z } from 'zod';
import type { ApiServices } from '../../application/index.ts';
import type { LegacyServices } from '../../application/v1/index.ts';
import { attachmentDisposition } from '../../framework/files/attachment.ts';
import { sendFile } from '../../framework/files/send-file.ts';
import { idParam } from '../../framework/http/params.ts';
import { type AnyRoute, defineRoute, type HandlerInput } from '../../framework/http/route.ts';
import { v1SoundInstanceKey } from '../../framework/http/sound-instance-key.ts';
import { v1AnalysisSchema, v1SoundPageSchema, v1SoundSchema } from '../presenters/schemas.ts';
import { serializeV1Sound } from '../presenters/sound.ts';
import { presentV1SoundPage, withDistance, withGeotag, withSamePack } from '../presenters/sound-page.ts';
import { v1ListRequest } from './list-request.ts';
import {
  v1AnalysisQuery,
  v1ContentSearchQuery,
  v1GeotagQuery,
  v1SearchQuery,
  v1SimilarQuery,
} from './query-schemas.ts';

const soundParams = z.object({ sound_id: idParam });

/** A rest-of-path parameter: the router gives a string (or its segments). */
const restOfPath = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((v) => (Array.isArray(v) ? v.join('/') : (v ?? '')))
  .describe('slash-separated path into the analysis tree, e.g. lowlevel/pitch/mean');

const TRUE = new Set(['1', 'true', 'True']);

/** The caches version 2 keeps rendered answers in: version 1 keeps its own there, keyed apart. */
export type RenderedAnswers = Pick<ApiServices, 'renderedSounds' | 'searchPages'>;

export function v1SoundRoutes(s: LegacyServices, cache: RenderedAnswers): AnyRoute[] {
  /**
   * A search page kept until the catalogue changes; a page of a cursor walk is not kept (a walk
   * starts anew each time, a later page reads its stored list).
   */
  const answer = <T>(input: HandlerInput<{ cursor?: string }, unknown>, render: () => Promise<T>) =>
    input.query.cursor === undefined ? cache.searchPages.answer(input, render) : render();
  return [
    defineRoute({
      method: 'GET',
      path: '/api/sounds/search/',
      operationId: 'v1SoundSearch',
      summary: 'Sound search (q, f, s, g)',
      tags: ['v1 sounds'],
      auth: 'read',
      query: v1SearchQuery,
      response: v1SoundPageSchema,
      // Kept until the catalogue changes, like version 2's pages; the hot path serves repeats.
      handler: (input) =>
        answer(input, async () => {
          const req = v1ListRequest(input);
          const page = await s.search.search(input.query, req);
          return presentV1SoundPage(req, page, withSamePack(req.links, input.query));
        }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/sounds/content_search/',
      operationId: 'v1ContentSearch',
      summary: 'Content search by descriptor target and filter',
      tags: ['v1 sounds'],
      auth: 'read',
      query: v1ContentSearchQuery,
      response: v1SoundPageSchema,
      handler: (input) =>
        answer(input, async () => {
          const req = v1ListRequest(input);
          return presentV1SoundPage(req, await s.search.content(input.query, req));
        }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/sounds/geotag/',
      operationId: 'v1Geotag',
      summary: 'Geotagged sounds inside a box, newest first',
      tags: ['v1 sounds'],
      auth: 'read',
      query: v1GeotagQuery,
      response: v1SoundPageSchema,
      handler: async (input) => {
        const req = v1ListRequest(input);
        return presentV1SoundPage(req, await s.sounds.geotagged(input.query, req), withGeotag);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/sounds/{sound_id}/',
      operationId: 'v1Sound',
      summary: 'A sound (version 1 record)',
      tags: ['v1 sounds'],
      auth: 'read',
      params: soundParams,
      response: v1SoundSchema,
      handler: async ({ params, origin }) => {
        const key = v1SoundInstanceKey(params.sound_id, origin);
        const cached = cache.renderedSounds.get(key);
        if (cached) return cached;
        const generation = cache.renderedSounds.generation;
        const record = await s.sounds.instance(params.sound_id);
        return cache.renderedSounds.remember(key, serializeV1Sound(record.sound, origin, 'full'), generation);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/sounds/{sound_id}/analysis/{filter...}',
      operationId: 'v1Analysis',
      summary: "A sound's analysis, or the branch a path names",
      description:
        'Recommended descriptors only unless all=true. 400 when the path matches nothing, 409 while the analysis is not yet available, 404 when it failed.',
      tags: ['v1 sounds'],
      auth: 'read',
      params: soundParams.extend({ filter: restOfPath }),
      query: v1AnalysisQuery,
      response: v1AnalysisSchema,
      errors: [409],
      handler: ({ params, query }) =>
        s.sounds.analysis(params.sound_id, params.filter, TRUE.has(query.all ?? '')) as Promise<unknown>,
    }),
    defineRoute({
      method: 'GET',
      path: '/api/sounds/{sound_id}/similar/',
      operationId: 'v1Similar',
      summary: 'The sound, then the sounds most similar to it, with distance',
      tags: ['v1 sounds'],
      auth: 'read',
      params: soundParams,
      query: v1SimilarQuery,
      response: v1SoundPageSchema,
      handler: (input) =>
        answer(input, async () => {
          const req = v1ListRequest(input);
          const page = await s.sounds.similar(input.params.sound_id, input.query, req);
          return presentV1SoundPage(req, page, withDistance);
        }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/sounds/{sound_id}/serve/',
      operationId: 'v1Serve',
      summary: "The sound's original file",
      tags: ['v1 sounds'],
      auth: 'read',
      params: soundParams,
      response: 'file',
      handler: async ({ params, ctx }) => {
        const file = await s.sounds.original(params.sound_id);
        ctx.set('Content-Disposition', attachmentDisposition(file.filename));
        await sendFile(ctx, file.path, { maxAge: 0, private: true });
        return { handled: true };
      },
    }),
  ];
}
