import { ValidationError } from '@earshot/common';
import { creditsText } from '@earshot/services';
import { z } from 'zod';
import type { CreditsFile, CreditsSelection, CreditsService } from '../../application/credits.ts';
import type { Principal } from '../../framework/auth/principal.ts';
import { bookmarkCategoryIdParam, idParam } from '../../framework/http/params.ts';
import {
  type AnyRoute,
  type AuthRequirement,
  defineRoute,
  type HandlerInput,
} from '../../framework/http/route.ts';

/** Ids one `/apiv2/credits/?ids=` names at most (a URL stays well under the 8 kB servers accept). */
export const CREDITS_MAX_IDS = 500;

const creditSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  username: z.string(),
  url: z.string().describe("the sound's web page"),
  license: z.string(),
  license_url: z.string().describe("the licence's deed"),
  attribution: z.string().describe('the credit line the licence asks for, in its own words, with links'),
});

const creditsSchema = z.object({
  title: z.string(),
  sounds: z.array(creditSchema),
  missing: z
    .array(z.number().int())
    .describe('ids asked for that are not public sounds: no credit is given for them'),
});

const idsQuery = z.object({
  ids: z.string().optional().describe(`comma-separated sound ids, at most ${CREDITS_MAX_IDS}`),
});

interface CreditsResource {
  path: string;
  operationId: string;
  summary: string;
  auth: AuthRequirement;
  params?: z.ZodObject<z.ZodRawShape>;
  query?: z.ZodObject<z.ZodRawShape>;
  selection: (input: HandlerInput<any, any>) => CreditsSelection;
}

/**
 * Credits files for any selection (docs/api.md, "Beyond the contract"): a list of ids, a pack,
 * one of the caller's bookmark categories. Each is served as JSON at its path and as plain text at
 * `text/` below it (`format` is the contract's: json, xml or yaml of the same object).
 */
export function creditsRoutes(credits: CreditsService): AnyRoute[] {
  const resources: CreditsResource[] = [
    {
      path: '/apiv2/credits/',
      operationId: 'credits',
      summary:
        'earshot: the credits of a list of sounds (`ids`), each with the credit line its licence asks for',
      auth: 'read',
      query: idsQuery,
      selection: ({ query }) => ({ ids: readIds(query.ids) }),
    },
    {
      path: '/apiv2/packs/{pack_id}/credits/',
      operationId: 'packCredits',
      summary: "earshot: the credits of a pack's public sounds",
      auth: 'read',
      params: z.object({ pack_id: idParam }),
      selection: ({ params }) => ({ pack: params.pack_id }),
    },
    {
      path: '/apiv2/me/bookmark_categories/{bookmark_category_id}/credits/',
      operationId: 'myBookmarkCategoryCredits',
      summary: "earshot: the credits of a bookmark category's public sounds (0: uncategorized)",
      auth: 'oauth2',
      params: z.object({ bookmark_category_id: bookmarkCategoryIdParam }),
      selection: ({ params, principal }) => ({
        bookmarkCategory: params.bookmark_category_id,
        userId: (principal as Principal).userId,
      }),
    },
  ];
  return resources.flatMap((resource) => {
    const shared = {
      method: 'GET' as const,
      tags: ['sounds'],
      auth: resource.auth,
      ...(resource.params ? { params: resource.params } : {}),
      ...(resource.query ? { query: resource.query } : {}),
      errors: [404],
    };
    return [
      defineRoute({
        ...shared,
        path: resource.path,
        operationId: resource.operationId,
        summary: resource.summary,
        response: creditsSchema,
        handler: async (input) => credits.credits(resource.selection(input), input.origin),
      }),
      defineRoute({
        ...shared,
        path: `${resource.path}text/`,
        operationId: `${resource.operationId}Text`,
        summary: `${resource.summary}, as plain text`,
        response: 'file',
        handler: async (input) => {
          const file: CreditsFile = await credits.credits(resource.selection(input), input.origin);
          input.ctx.status = 200;
          input.ctx.type = 'text/plain; charset=utf-8';
          input.ctx.set('Content-Disposition', 'inline; filename="credits.txt"');
          input.ctx.body = creditsText(file.title, file.sounds, file.missing);
          return { handled: true };
        },
      }),
    ];
  });
}

function readIds(raw: string | undefined): number[] {
  const parts = (raw ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (parts.length === 0) throw new ValidationError('ids: give one or more comma-separated sound ids');
  if (parts.length > CREDITS_MAX_IDS) throw new ValidationError(`ids: at most ${CREDITS_MAX_IDS} sound ids`);
  return parts.map((part) => {
    const id = /^\d{1,10}$/.test(part) ? Number(part) : Number.NaN;
    if (!(id >= 1 && id <= 2 ** 31 - 1)) throw new ValidationError(`ids: "${part}" is not a sound id`);
    return id;
  });
}
