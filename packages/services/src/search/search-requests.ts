import type { FacetRequest, Facets, Page, PageRequest } from '@earshot/catalogue';
import type { AnalysisTree } from '@earshot/core';

/**
 * What a search is asked and answers, for every caller of the SearchEngine (the API's contract
 * rules, the web pages, `earshot similar`). Every request asks for one page as `{ limit, offset }`.
 * Its `signal`, when given, stops the search's database work once the answer is no longer wanted
 * (the API passes its request's, aborted when the client goes away).
 */

export interface Hit {
  id: number;
  score?: number;
  /** Grouped search: matches in the same pack, this one included, when more than one. */
  nFromSamePack?: number;
  packGrouping?: string;
  /** A search sorted by target values: the distance to them (null when the sound lacks one). */
  distanceToTarget?: number | null;
}

/** One page of hits with the count of all of them (and the facets of all of them, when asked for). */
export type Hits = Page<Hit> & { facets?: Facets };

export interface TextSearchRequest extends PageRequest {
  query: string;
  filter?: string;
  sort?: string;
  weights?: string;
  groupByPack: boolean;
  /** The most `limit` may be (default the page size cap): a caller reading a whole result raises it. */
  maxLimit?: number;
  /** Facets to count over every match (issue 36). */
  facets?: FacetRequest;
  signal?: AbortSignal;
}

export interface SimilarityRequest extends PageRequest {
  space: string;
  /** A sound id (excluded from the results) or a vector. */
  target: { soundId: number } | { vector: number[] };
  /** Text filter the results must satisfy. */
  filter?: string;
  /** Descriptor filter the results must satisfy (variant A's similar sounds). */
  descriptorsFilter?: string;
  signal?: AbortSignal;
}

/**
 * Search by example: the analysis of a sound that is not in the catalogue (an uploaded descriptor
 * file or an analyzed clip). It is compared in `space` when it holds what that space is computed
 * from; without a named space, in the default space if it can be, else by the descriptors a
 * sound-id target compares (the variant-B file has no frame statistics for a space).
 */
export interface SearchExample {
  tree: AnalysisTree;
  /** The space the caller named; an example lacking what it needs is then a 400. */
  space?: string;
}

export interface ContentSearchRequest extends PageRequest {
  /** Descriptor target: `name:value` pairs, or a sound id whose descriptors are the target. */
  target?: string;
  /** Overrides `target`. */
  example?: SearchExample;
  descriptorsFilter?: string;
  /** Combined search: the text part, either a query or a filter. */
  query?: string;
  filter?: string;
  signal?: AbortSignal;
}
