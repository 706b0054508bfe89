import { z } from 'zod';

/**
 * Query-parameter schemas shared by many routes. Every query value arrives as a string; these
 * schemas describe the wire form (for OpenAPI) and turn it into what the handler uses.
 */

/** A free-form comma-separated list of names (`fields`, `descriptors`). */
export const commaList = (description: string) => z.string().optional().describe(description);

/** `page`: an integer; the router's pagination decides what an invalid value means. */
export const pageParam = z.string().optional().describe('page number, 1 for the first page (default 1)');

/** `page_size`: default 15, at most 150. */
export const pageSizeParam = z.string().optional().describe('results per page (default 15, maximum 150)');

/** Ids are PostgreSQL `integer`s: a larger one names no object (and would overflow the statement). */
export const MAX_ID = 2 ** 31 - 1;

/**
 * The one reading of an object id from a path, query or form, for the API's routes and the pages
 * alike: decimal digits naming 1 … MAX_ID, or undefined, which names no object (a 404 where the id
 * is in the path). Ids past MAX_ID never reach a statement, where they would overflow.
 */
export function parseId(text: unknown): number | undefined {
  if (typeof text !== 'string' || !/^\d{1,10}$/.test(text)) return undefined;
  const id = Number(text);
  return id >= 1 && id <= MAX_ID ? id : undefined;
}

/** A path id as parseId reads it; anything else is a 404 like a missing object. */
export const idParam = z
  .string()
  .refine((text) => parseId(text) !== undefined)
  .transform(Number)
  .describe('numeric identifier');

/** A bookmark category's id: parseId's, or 0, the contract's name for the uncategorized bookmarks. */
export const bookmarkCategoryIdParam = z
  .string()
  .refine((text) => text === '0' || parseId(text) !== undefined)
  .transform(Number)
  .describe('numeric identifier of a bookmark category (0: uncategorized)');

export const fieldsParam = commaList(
  'comma-separated sound fields to return; in variant B also descriptor names (`all_descriptors`: every one) and `sim_<space>` similarity vectors (`all_similarity_spaces`: every space); in search results also `score` and, with a sort by target values, `distance_to_target`',
);
