import { z } from 'zod';
import type { ApiServices } from '../../application/index.ts';
import type { RenderedJson } from '../../framework/http/rendered-json.ts';
import {
  type AnyRoute,
  defineRoute,
  type HandlerInput,
  type HttpMethod,
  type RouteFileField,
} from '../../framework/http/route.ts';
import { pageSchema } from '../presenters/pagination.ts';
import { combinedSchema, facetsSchema, soundListItem } from '../presenters/schemas.ts';
import {
  presentCombinedSearch,
  presentContentSearch,
  presentTextSearch,
} from '../presenters/sound-presenter.ts';
import { listRequest } from './list-request.ts';
import { combinedSearchQuery, contentSearchQuery, textSearchQuery } from './query-schemas.ts';

/**
 * Text search at `/apiv2/search/` and `/apiv2/search/text/`, content and combined search; GET and
 * POST alike (DECISIONS.md). A POST may send its parameters in the body too (form, multipart
 * without files, JSON), merged with the query string; a name in both takes the body's value.
 */
/**
 * Search by example, POST only. `analysis_file` is the contract's (a descriptor file in a layout
 * earshot writes, read in memory); `audio_file` is earshot's extension: a clip streamed to a
 * temporary file, analyzed in a worker thread (its first 30 s) and deleted, counted against the
 * strict limits as the costly write resources are.
 */
const EXAMPLE_FILES: Record<string, RouteFileField> = {
  analysis_file: {
    store: 'memory',
    maxBytes: 16 * 1024 * 1024,
    description:
      "analysis of a sound that is not in the catalogue, in a layout earshot writes: the variant-A statistics (analysis_stats), the variant-B descriptors or the frames file; overrides 'target'",
  },
  audio_file: {
    store: 'temp-file',
    maxBytes: 200 * 1024 * 1024,
    rateLimit: 'strict',
    description:
      "earshot extension: an audio clip (any format ffmpeg reads); its first 30 s are analyzed during the request and compared like an analysis_file, and the clip is never stored. Counts against the strict rate limits; the answer's 'note' says when the clip was cut and 'analyzed_seconds' how much was analyzed. The server analyzes clips in CLIP_THREADS threads below the priority of other requests (CLIP_THREAD_NICENESS)",
  },
};

const exampleExtras = {
  note: z.string().optional().describe('earshot: set when an audio_file was cut to its first 30 s'),
  analyzed_seconds: z.number().optional().describe('earshot: seconds of the audio_file that were analyzed'),
};

/** The example files of a request, as the search service takes them. */
function exampleInput(input: HandlerInput<{ similarity_space?: string }, unknown>) {
  const analysis = input.files.analysis_file;
  const audio = input.files.audio_file;
  return {
    analysisFile: analysis?.store === 'memory' ? { data: analysis.data } : undefined,
    audioFile: audio?.store === 'temp-file' ? { path: audio.path, fileName: audio.fileName } : undefined,
    space: input.query.similarity_space,
  };
}

/**
 * A search carrying a file is computed afresh: the page cache keys on the query alone. So is a page
 * of a cursor walk: a walk starts anew each time, and a later page reads its stored list.
 */
function pageCacheable(input: HandlerInput<{ cursor?: string }, unknown>): boolean {
  return Object.keys(input.files).length === 0 && input.query.cursor === undefined;
}

/** What a text search page depends on: the route's input without the HTTP context (no files: none are taken). */
export type TextSearchInput = Pick<
  HandlerInput<z.output<typeof textSearchQuery>, unknown>,
  'query' | 'rawQuery' | 'origin' | 'path'
>;

/**
 * A page of text search, kept until the catalogue changes (a page of a cursor walk is not). The
 * routes and the hot path (hot-path.ts, which answers a GET without Koa) both answer with this.
 */
export function textSearchBody(
  s: ApiServices,
  input: TextSearchInput,
): Promise<RenderedJson | ReturnType<typeof presentTextSearch>> {
  const run = async () => {
    const req = listRequest(input, s.variant, 'search', true);
    return presentTextSearch(req.links, await s.search.text(input.query, req), req.sounds);
  };
  return input.query.cursor === undefined ? s.searchPages.answer(input, run) : run();
}

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
          scope: 'read', // POST too: a search changes nothing
          query: textSearchQuery,
          bodyParams: method === 'POST',
          response: pageSchema(soundListItem).extend({ facets: facetsSchema.optional() }),
          handler: (input) => textSearchBody(s, input),
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
        scope: 'read', // POST too: a search changes nothing
        query: contentSearchQuery,
        bodyParams: method === 'POST',
        ...(method === 'POST' ? { files: EXAMPLE_FILES, errors: [413, 429] } : {}),
        response: pageSchema(soundListItem).extend(exampleExtras),
        handler: (input) => {
          const run = async () => {
            const req = listRequest(input, s.variant, 'search', true);
            const page = await s.search.content(input.query, req, exampleInput(input));
            return presentContentSearch(req.links, page, req.sounds);
          };
          return pageCacheable(input) ? s.searchPages.answer(input, run) : run();
        },
      }),
      defineRoute({
        method,
        path: '/apiv2/search/combined/',
        operationId: `combinedSearch${suffix}`,
        summary: 'Text and content search combined (deprecated)',
        tags: ['search'],
        auth: 'read',
        scope: 'read', // POST too: a search changes nothing
        query: combinedSearchQuery,
        bodyParams: method === 'POST',
        ...(method === 'POST' ? { files: EXAMPLE_FILES, errors: [413, 429] } : {}),
        response: combinedSchema.extend(exampleExtras),
        handler: (input) => {
          const run = async () => {
            const req = listRequest(input, s.variant, 'search', true);
            const answer = await s.search.combined(input.query, req, exampleInput(input));
            return presentCombinedSearch(req.links, answer, req.sounds);
          };
          return pageCacheable(input) ? s.searchPages.answer(input, run) : run();
        },
      }),
    );
  }
  return routes;
}
