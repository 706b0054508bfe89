import type { PageRequest } from '../repositories/shared.ts';
import { type SearchParameter, SearchSyntaxError } from './errors.ts';
import { checkFacetRequest, type FacetRequest } from './facets.ts';
import type { FilterNode } from './filter-ast.ts';
import { parseFilter } from './filter-parser.ts';
import {
  type FieldWeights,
  parseGroupByPack,
  parseSort,
  parseV1Grouping,
  parseWeights,
  type SortOption,
} from './params.ts';
import { parseTextQuery, type TextQuery } from './query-parser.ts';
import { isSortTarget, parseSortTarget, type SortTarget } from './sort-target.ts';

/** A text search as the v2 API receives it (raw parameter strings; undefined = parameter absent). */
export interface SearchRequest extends Partial<PageRequest> {
  query?: string;
  filter?: string;
  /** Content-search restriction (`descriptors_filter`), ANDed with `filter`. */
  descriptorsFilter?: string;
  sort?: string;
  weights?: string;
  /** The raw `group_by_pack` value ("1" = on), or a boolean. */
  groupByPack?: string | boolean;
  /** Results per page (default 15, at most `maxLimit`). */
  limit?: number;
  /**
   * The most `limit` may be (default MAX_PAGE_SIZE): a caller that reads a whole result at once (a
   * cursor walk's first page) raises it.
   */
  maxLimit?: number;
  /** Results skipped before the page (default 0). */
  offset?: number;
  /** The instant `NOW` means in date math (default: the current time). */
  now?: Date;
  /** Fixed-length descriptor names allowed in `descriptorsFilter`; unset = any well-formed name. */
  descriptorNames?: ReadonlySet<string>;
  /** Facets to count over every match (issue 36); absent = none, and the answer carries none. */
  facets?: FacetRequest;
}

/** The v1 `/api/sounds/search` parameters. */
export interface V1SearchRequest {
  q?: string;
  f?: string;
  s?: string;
  g?: string;
  p?: number;
  soundsPerPage?: number;
  now?: Date;
}

/**
 * A search with every parameter parsed and checked: executing it cannot fail on bad input. The
 * page is the catalogue's `{ limit, offset }`, as every list of the catalogue takes it.
 */
export interface PreparedSearch extends Readonly<PageRequest> {
  readonly query: TextQuery;
  readonly filter: FilterNode | null;
  readonly sort: SortOption;
  /** `sort` named target values: the matches nearest to them first (`sort` is then `score`). */
  readonly sortTarget?: SortTarget;
  readonly weights: FieldWeights;
  readonly groupByPack: boolean;
  /** Facets to count over every match, beside the page. */
  readonly facets?: FacetRequest;
}

export const MAX_PAGE_SIZE = 150;

/** Whether a search is already prepared (prepareSearch's result) or still the raw request. */
export function isPrepared(r: SearchRequest | PreparedSearch): r is PreparedSearch {
  return typeof (r as PreparedSearch).query === 'object' && (r as PreparedSearch).query !== null;
}

/** Parses and checks a v2 search request; every problem is a SearchSyntaxError naming its parameter. */
export function prepareSearch(req: SearchRequest): PreparedSearch {
  const now = req.now ?? new Date();
  const filters: FilterNode[] = [];
  if (req.filter !== undefined) {
    if (!req.filter.trim()) throw new SearchSyntaxError('filter', 'it is empty');
    filters.push(parseFilter(req.filter, { now }));
  }
  if (req.descriptorsFilter !== undefined) {
    if (!req.descriptorsFilter.trim()) throw new SearchSyntaxError('descriptors_filter', 'it is empty');
    filters.push(
      parseFilter(req.descriptorsFilter, {
        now,
        mode: 'descriptors',
        parameter: 'descriptors_filter',
        descriptorNames: req.descriptorNames,
      }),
    );
  }
  const sortTarget = isSortTarget(req.sort) ? parseSortTarget(req.sort, 'sort') : undefined;
  const groupByPack =
    typeof req.groupByPack === 'boolean' ? req.groupByPack : parseGroupByPack(req.groupByPack);
  if (sortTarget && groupByPack) {
    throw new SearchSyntaxError('sort', 'a sort by target values does not combine with group_by_pack=1');
  }
  return {
    query: parseTextQuery(req.query, 'query'),
    filter: joinFilters(filters),
    sort: sortTarget ? 'score' : parseSort(req.sort, 'sort'),
    ...(sortTarget ? { sortTarget } : {}),
    weights: parseWeights(req.weights),
    groupByPack,
    limit: checkCount(req.limit ?? 15, 'page_size', Math.max(MAX_PAGE_SIZE, req.maxLimit ?? 0)),
    offset: checkOffset(req.offset ?? 0),
    ...(req.facets ? { facets: checkFacetRequest(req.facets) } : {}),
  };
}

/** Parses a v1 search (`q` default "+" = everything, `f` raw filter, `s`, `g`, 30 per page). */
export function prepareV1Search(req: V1SearchRequest): PreparedSearch {
  const now = req.now ?? new Date();
  const f = req.f?.trim() ? parseFilter(req.f, { now, parameter: 'f' }) : null;
  const limit = checkCount(req.soundsPerPage ?? 30, 'page_size', 100);
  const page = checkCount(req.p ?? 1, 'page', Number.MAX_SAFE_INTEGER);
  return {
    query: parseTextQuery(req.q ?? '+', 'q'),
    filter: f,
    sort: parseSort(req.s, 's'),
    weights: parseWeights(undefined),
    groupByPack: parseV1Grouping(req.g),
    limit,
    // v1 counts pages: the one place a page number becomes an offset.
    offset: checkOffset((page - 1) * limit),
  };
}

function joinFilters(filters: FilterNode[]): FilterNode | null {
  if (filters.length === 0) return null;
  return filters.length === 1 ? filters[0] : { kind: 'and', children: filters };
}

function checkOffset(n: number): number {
  if (!Number.isSafeInteger(n) || n < 0) throw new SearchSyntaxError('page', 'is out of range');
  return n;
}

function checkCount(n: number, parameter: SearchParameter, max: number): number {
  if (!Number.isSafeInteger(n) || n < 1 || n > max) {
    throw new SearchSyntaxError(parameter, `must be an integer from 1 to ${max}`);
  }
  return n;
}
