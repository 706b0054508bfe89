export type { DatePeriod } from './date-math.ts';
export { parseDateExpression } from './date-math.ts';
export { ANALYSIS_NAMESPACES, resolveDescriptorName } from './descriptor-names.ts';
export { SearchAbandoned, SearchExecutionError, type SearchParameter, SearchSyntaxError } from './errors.ts';
export {
  DEFAULT_POPULARITY_CAP_ABOVE,
  matchingSoundIds,
  type PackGroup,
  type SearchCatalogue,
  type SearchOptions,
  type SearchResult,
  searchCondition,
  searchSounds,
} from './execute.ts';
export {
  DEFAULT_FACET_LIMIT,
  FACET_NAMES,
  type FacetCount,
  type FacetName,
  type FacetRequest,
  type Facets,
  facetFilter,
  isFacetName,
  MAX_FACET_LIMIT,
} from './facets.ts';
export { type FieldDef, type FieldType, filterFieldNames, lookupFilterField } from './fields.ts';
export type { FieldRef, FilterNode, FilterValue, RangeBound } from './filter-ast.ts';
export { FILTER_LIMITS, type FilterParseOptions, parseFilter } from './filter-parser.ts';
export { matchingSoundIdSet } from './id-set.ts';
export { LiveSearchIndex, type LiveSearchIndexOptions, type SnapshotStore } from './live-search-index.ts';
export {
  DEFAULT_WEIGHTS,
  type FieldWeights,
  parseGroupByPack,
  parseSort,
  parseV1Grouping,
  parseWeights,
  SORT_OPTIONS,
  type SortOption,
} from './params.ts';
export { POPULAR_CANDIDATES } from './popular-candidates.ts';
export {
  type PostingAnswer,
  type PostingIndexData,
  type PostingList,
  postingIndexAnswers,
  searchPostingIndex,
} from './posting-index.ts';
export { loadPostingIndex } from './posting-index-load.ts';
export { decodePostingIndex } from './posting-index-snapshot.ts';
export { type ClauseMemo, postingSearch } from './posting-search.ts';
export {
  MAX_PAGE_SIZE,
  type PreparedSearch,
  prepareSearch,
  prepareV1Search,
  type SearchRequest,
  type V1SearchRequest,
} from './prepare.ts';
export { parseTextQuery, QUERY_LIMITS, type QueryClause, type TextQuery } from './query-parser.ts';
export { SEARCH_SIDE_TABLES, SEARCH_TABLE } from './search-schema.ts';
export {
  isSortTarget,
  MAX_SORT_TARGET_TERMS,
  parseSortTarget,
  type SortTarget,
  type SortTargetTerm,
  sortTargetFieldNames,
} from './sort-target.ts';
export { DEFAULT_SEARCH_BUDGET_MS, type SearchLimits } from './statement.ts';
export {
  type NameSuggestion,
  prefixEnd,
  suggestSoundNames,
  suggestTags,
  type TagSuggestion,
} from './suggest.ts';
