import { SUGGESTION_LIMITS } from '@earshot/services';
import { z } from 'zod';
import type { SuggestionReader } from '../../application/ports.ts';
import { type AnyRoute, defineRoute } from '../../framework/http/route.ts';

const suggestionsSchema = z.object({
  q: z.string().describe('the prefix completed: lower-cased, leading spaces dropped'),
  tags: z
    .array(z.object({ tag: z.string(), sounds: z.number().int().describe('public sounds carrying it') }))
    .describe('tags starting with q, the most used first'),
  names: z
    .array(
      z.object({
        name: z.string(),
        num_downloads: z.number().int().describe('downloads of the most downloaded sound of that name'),
      }),
    )
    .describe(
      'names of public sounds starting with q (case-insensitive), each once, the most downloaded first',
    ),
});

/** Autocomplete (docs/api.md, "Beyond the contract"). */
export function suggestRoutes(suggestions: SuggestionReader): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/apiv2/search/suggest/',
      operationId: 'searchSuggestions',
      summary: 'earshot: tags and sound names completing the start of a search, ranked by use',
      tags: ['search'],
      auth: 'read',
      query: z.object({
        q: z
          .string({ error: 'required: the start of a tag or of a sound name' })
          .min(1, 'required: the start of a tag or of a sound name')
          .describe(`the start of a tag or of a sound name, at most ${SUGGESTION_LIMITS.prefix} characters`),
        limit: z
          .string()
          .regex(/^\d{1,2}$/, `an integer from 1 to ${SUGGESTION_LIMITS.max}`)
          .optional()
          .describe(
            `completions of each kind, 1 to ${SUGGESTION_LIMITS.max} (default ${SUGGESTION_LIMITS.default})`,
          ),
      }),
      response: suggestionsSchema,
      handler: async ({ query }) => {
        const found = await suggestions.suggest({
          q: query.q,
          limit: query.limit === undefined ? undefined : Number(query.limit),
        });
        return {
          q: found.q,
          tags: found.tags,
          names: found.names.map((n) => ({ name: n.name, num_downloads: n.numDownloads })),
        };
      },
    }),
  ];
}
