import { type SearchParameter, SearchSyntaxError } from './errors.ts';
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

/** A text search as the v2 API receives it (raw parameter strings; undefined = parameter absent). */
export interface SearchRequest {
  query?: string;
  filter?: string;
  /** Content-search restriction (`descriptors_filter`), ANDed with `filter`. */
  descriptorsFilter?: string;
  sort?: string;
  weights?: string;
  /** The raw `group_by_pack` value ("1" = on), or a boolean. */
  groupByPack?: string | boolean;
  /** 1-based page number (default 1). */
  page?: number;
  /** Results per page (default 15). */
  pageSize?: number;
  /** The instant `NOW` means in date math (default: the current time). */
  now?: Date;
  /** Fixed-length descriptor names allowed in `descriptorsFilter`; unset = any well-formed name. */
  descriptorNames?: ReadonlySet<string>;
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

/** A search with every parameter parsed and checked: executing it cannot fail on bad input. */
export interface PreparedSearch {
  readonly query: TextQuery;
  readonly filter: FilterNode | null;
  readonly sort: SortOption;
  readonly weights: FieldWeights;
  readonly groupByPack: boolean;
  readonly page: number;
  readonly pageSize: number;
}

export const MAX_PAGE_SIZE = 150;

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
  return {
    query: parseTextQuery(req.query, 'query'),
    filter: joinFilters(filters),
    sort: parseSort(req.sort, 'sort'),
    weights: parseWeights(req.weights),
    groupByPack: typeof req.groupByPack === 'boolean' ? req.groupByPack : parseGroupByPack(req.groupByPack),
    page: checkCount(req.page ?? 1, 'page', Number.MAX_SAFE_INTEGER),
    pageSize: checkCount(req.pageSize ?? 15, 'page_size', MAX_PAGE_SIZE),
  };
}

/** Parses a v1 search (`q` default "+" = everything, `f` raw filter, `s`, `g`, 30 per page). */
export function prepareV1Search(req: V1SearchRequest): PreparedSearch {
  const now = req.now ?? new Date();
  const f = req.f?.trim() ? parseFilter(req.f, { now, parameter: 'f' }) : null;
  return {
    query: parseTextQuery(req.q ?? '+', 'q'),
    filter: f,
    sort: parseSort(req.s, 's'),
    weights: parseWeights(undefined),
    groupByPack: parseV1Grouping(req.g),
    page: checkCount(req.p ?? 1, 'page', Number.MAX_SAFE_INTEGER),
    pageSize: checkCount(req.soundsPerPage ?? 30, 'page_size', 100),
  };
}

function joinFilters(filters: FilterNode[]): FilterNode | null {
  if (filters.length === 0) return null;
  return filters.length === 1 ? filters[0] : { kind: 'and', children: filters };
}

function checkCount(n: number, parameter: SearchParameter, max: number): number {
  if (!Number.isSafeInteger(n) || n < 1 || n > max) {
    throw new SearchSyntaxError(parameter, `must be an integer from 1 to ${max}`);
  }
  return n;
}
