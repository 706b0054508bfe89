import { LICENSES } from '../schema/licenses.ts';
import { SearchSyntaxError } from './errors.ts';

/**
 * Facets of a text search (issue 36): for each named field, the most frequent values among every
 * sound the search matches (not only the page), each with its exact count. A value's count is
 * the count of the same search with `facetFilter(name, value)` added to its filter.
 */

/** The facet names a search accepts, in the order Freesound's website lists its facets, then the audio ones. */
export const FACET_NAMES = [
  'tags',
  'license',
  'type',
  'category',
  'subcategory',
  'username',
  'pack',
  'samplerate',
  'channels',
  'bitdepth',
] as const;

export type FacetName = (typeof FACET_NAMES)[number];

/** Values per facet when the request does not say, and the most it may ask for. */
export const DEFAULT_FACET_LIMIT = 10;
export const MAX_FACET_LIMIT = 100;

/** Facets whose values are numbers (the others are strings). */
const NUMERIC_FACETS: ReadonlySet<FacetName> = new Set(['samplerate', 'channels', 'bitdepth']);

export interface FacetRequest {
  readonly names: readonly FacetName[];
  /** Values kept per facet (1 … MAX_FACET_LIMIT). */
  readonly limit: number;
}

/** `[value, count]`: count descending, then value ascending (numbers by value, strings by code unit). */
export type FacetCount = [value: string | number, count: number];

export type Facets = { [name in FacetName]?: FacetCount[] };

export function isFacetName(name: string): name is FacetName {
  return (FACET_NAMES as readonly string[]).includes(name);
}

export function isNumericFacet(name: FacetName): boolean {
  return NUMERIC_FACETS.has(name);
}

/** A `facets` request checked (the API's route schema checks the same first, with its own message). */
export function checkFacetRequest(request: FacetRequest): FacetRequest {
  const unknown = request.names.filter((n) => !isFacetName(n));
  if (unknown.length)
    throw new SearchSyntaxError(
      'facets',
      `unknown facet ${unknown.map((n) => `"${n}"`).join(', ')}; the facets are ${FACET_NAMES.join(', ')}`,
    );
  if (!Number.isSafeInteger(request.limit) || request.limit < 1 || request.limit > MAX_FACET_LIMIT)
    throw new SearchSyntaxError('facet_limit', `must be an integer from 1 to ${MAX_FACET_LIMIT}`);
  return { names: [...new Set(request.names)], limit: request.limit };
}

/** The filter clause that keeps the sounds of one facet value (the field the facet counts by). */
export function facetFilter(name: FacetName, value: string | number): string {
  if (isNumericFacet(name)) return `${name}:${value}`;
  const field = name === 'tags' ? 'tag' : name === 'pack' ? 'pack_grouping' : name;
  return `${field}:"${String(value).replace(/["\\]/g, '\\$&')}"`;
}

/** How a license reads in a facet: its canonical name, whatever case the catalogue stored it in. */
const CANONICAL_LICENSES = new Map(LICENSES.map((l) => [l.toLowerCase(), l as string]));

export function licenseValue(lowerCased: string): string {
  return CANONICAL_LICENSES.get(lowerCased) ?? lowerCased;
}

/** The order of a facet's values: count descending, then value ascending. */
export function compareFacetCounts(a: FacetCount, b: FacetCount): number {
  if (a[1] !== b[1]) return b[1] - a[1];
  if (typeof a[0] === 'number' && typeof b[0] === 'number') return a[0] - b[0];
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}
