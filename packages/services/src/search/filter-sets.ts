import { type Db, matchingSoundIdSet } from '@earshot/catalogue';

/** The text part of a similarity, content or combined search that narrows the candidates. */
export interface FilterRequest {
  query?: string;
  filter?: string;
  descriptorsFilter?: string;
  /** The read started for this request stops when it aborts (see SearchLimits). */
  signal?: AbortSignal;
}

/** Ids of every visible sound the request matches; undefined when nothing narrows the search. */
export type FilterSets = (req: FilterRequest) => Promise<ReadonlySet<number> | undefined>;

/**
 * The uncached reads: the catalogue's id set of the filter (`matchingSoundIdSet`), at most `limit`
 * ids, each within `budgetMs` of database time (the catalogue's default when absent).
 */
export function filterSetsFromCatalogue(db: Db, limit: number, budgetMs?: number): FilterSets {
  const catalogue = { db };
  return async (req) =>
    filterNarrows(req)
      ? matchingSoundIdSet(
          catalogue,
          { query: req.query, filter: req.filter, descriptorsFilter: req.descriptorsFilter },
          limit,
          { budgetMs, signal: req.signal },
        )
      : undefined;
}

/** False when the request has no text part: every indexed sound is a candidate, no read needed. */
export function filterNarrows(req: FilterRequest): boolean {
  return Boolean(req.query || req.filter || req.descriptorsFilter);
}
