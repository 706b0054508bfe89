import {
  type Db,
  DEFAULT_SEARCH_BUDGET_MS,
  type PreparedSearch,
  prepareSearch,
  type SearchLimits,
  type SearchResult,
  searchSounds,
} from '@earshot/catalogue';
import {
  DEFAULT_SIMILARITY_SPACE,
  DescriptorRowSet,
  type DescriptorSearchResult,
  exampleTarget,
  exampleVector,
  InvalidAnalysisFileError,
  listSimilaritySpaces,
  parseDescriptorTarget,
  type SimilarityIndex,
  searchDescriptorTarget,
  VARIABLE_LENGTH_DESCRIPTORS,
} from '@earshot/core';
import { type FilterRequest, type FilterSets, filterSetsFromCatalogue } from './filter-sets.ts';
import { NeighbourCache } from './neighbour-cache.ts';
import type {
  ContentSearchRequest,
  Hits,
  SearchExample,
  SimilarityRequest,
  TextSearchRequest,
} from './search-requests.ts';
import type { SimilarityState } from './similarity-state.ts';

/** Upper bound on the ids a text filter may pass to the similarity engine in one query. */
const FILTER_ID_LIMIT = 1_000_000;

export interface SearchEngine {
  text(req: TextSearchRequest): Promise<Hits>;
  /** Undefined when the target sound is unknown or has no vector in the space. */
  similar(req: SimilarityRequest): Promise<Hits | undefined>;
  /** Content search: by a descriptor target or an example, with the text part of a combined search. */
  content(req: ContentSearchRequest): Promise<Hits>;
  spaces(): { names: string[]; defaultSpace: string };
  /**
   * The fixed-length descriptors content filters may name (numbers, vectors and string leaves such
   * as `tonal.key_key`; targets take the numeric ones) and the variable-length ones: the variant A
   * descriptors response.
   */
  descriptorNames(): { oneDimensional: string[]; multiDimensional: string[]; variableLength: string[] };
}

export interface SearchEngineOptions {
  /** Database time of one search (its text part, or the id set of its filter). */
  budgetMs?: number;
  /**
   * Wraps the catalogue's filter reads, for a caller that shares them between requests (the API
   * keeps each filter's ids until the catalogue changes). Without it every search reads its own.
   */
  cacheFilterSets?: (read: FilterSets) => FilterSets;
  /**
   * An in-process text index (the catalogue's LiveSearchIndex): the text searches it answers
   * (undefined for the others, and while it builds) are not run in the database.
   */
  textIndex?: TextIndex;
}

/** What the engine asks of an in-process text index: an answer, or undefined to run the search in the catalogue. */
export interface TextIndex {
  search(search: PreparedSearch, limits: SearchLimits): Promise<SearchResult | undefined>;
}

/**
 * Text search runs in the in-process index where it answers, else in the catalogue (PostgreSQL
 * full text); similarity and content search in the
 * in-memory similarity state, with text filters turned into an id set by the catalogue first.
 */
export function searchEngine(
  db: Db,
  state: SimilarityState,
  options: SearchEngineOptions = {},
): SearchEngine {
  const budgetMs = options.budgetMs ?? DEFAULT_SEARCH_BUDGET_MS;
  const catalogue = { db };
  const read = filterSetsFromCatalogue(db, FILTER_ID_LIMIT, budgetMs);
  const filterSet = options.cacheFilterSets ? options.cacheFilterSets(read) : read;
  const neighbourCache = new NeighbourCache();
  // Each filter id set resolved to descriptor-table rows once (per table version), not per request.
  const rowSets = new WeakMap<ReadonlySet<number>, DescriptorRowSet>();
  const rowSetOf = (ids: ReadonlySet<number>): DescriptorRowSet => {
    let rows = rowSets.get(ids);
    if (!rows) {
      rows = new DescriptorRowSet(ids);
      rowSets.set(ids, rows);
    }
    return rows;
  };

  function indexOf(space: string): SimilarityIndex {
    state.assertReady(); // 503 while the indexes load from their snapshot or are rebuilt
    const index = state.indexes.get(space);
    if (!index) throw new Error(`similarity space ${space} is not loaded`);
    return index;
  }

  return {
    async text(req: TextSearchRequest): Promise<Hits> {
      const search = prepareSearch({
        query: req.query,
        filter: req.filter,
        sort: req.sort,
        weights: req.weights,
        groupByPack: req.groupByPack,
        limit: req.limit,
        maxLimit: req.maxLimit,
        offset: req.offset,
        ...(req.facets ? { facets: req.facets } : {}),
      });
      const result =
        (await options.textIndex?.search(search, limitsOf(req))) ??
        (await searchSounds(catalogue, search, limitsOf(req)));
      return {
        count: result.count,
        items: result.ids.map((id, i) => {
          const group = result.packGroups?.[i];
          return {
            id,
            score: result.scores[i],
            ...(result.distances ? { distanceToTarget: result.distances[i] } : {}),
            ...(group && group.count > 1
              ? { nFromSamePack: group.count, packGrouping: String(group.packId) }
              : {}),
          };
        }),
        ...(result.facets ? { facets: result.facets } : {}),
      };
    },

    async similar(req: SimilarityRequest): Promise<Hits | undefined> {
      const index = indexOf(req.space);
      const allowed = await filterSet(filterOf(req));
      const target = 'soundId' in req.target ? req.target.soundId : undefined;
      if (target !== undefined && !index.has(target)) return undefined;
      // Every indexed sound (that passes the filter) is a result, ranked by similarity; pages
      // past the first ask the graph for more neighbours.
      const eligible = allowed ? countIn(index, allowed) : index.size;
      const count = Math.max(
        0,
        eligible - (target !== undefined && (!allowed || allowed.has(target)) ? 1 : 0),
      );
      const k = Math.min(req.offset + req.limit, count);
      if (k <= req.offset) return { count, items: [] };
      const neighbours =
        'vector' in req.target
          ? index.nearestToVector(Float32Array.from(req.target.vector), { k, filter: allowed })
          : allowed
            ? index.nearestToSound(req.target.soundId, { k, filter: allowed })
            : neighbourCache.nearest(state.generation, req.space, req.target.soundId, k, () =>
                index.nearestToSound(target as number, { k }),
              );
      return { count, items: neighbours.slice(req.offset).map((n) => ({ id: n.id, score: n.score })) };
    },

    async content(req: ContentSearchRequest): Promise<Hits> {
      // The example's vector is checked before any filter is resolved: a bad file is a quick 400.
      const vector = req.example && exampleSpaceVector(req.example);
      const allowed = await filterSet(filterOf(req));
      if (vector) {
        // Like similar sounds: every indexed sound that passes the filters, nearest first.
        const index = indexOf(vector.space);
        const count = allowed ? countIn(index, allowed) : index.size;
        const k = Math.min(req.offset + req.limit, count);
        if (k <= req.offset) return { count, items: [] };
        const neighbours = index.nearestToVector(vector.vector, { k, filter: allowed });
        return { count, items: neighbours.slice(req.offset).map((n) => ({ id: n.id, score: n.score })) };
      }
      if (req.example) {
        state.assertDescriptorsReady();
        const table = state.table;
        const target = exampleTarget(req.example.tree, (name) => {
          try {
            return table.resolve(name).length > 0;
          } catch {
            return false;
          }
        });
        return descriptorHits(
          searchDescriptorTarget(table, target, {
            k: req.limit,
            offset: req.offset,
            filter: allowed && rowSetOf(allowed),
          }),
        );
      }
      if (req.target === undefined) {
        // No target: the filtered sounds in id order, as the legacy content search lists them.
        const ids = [...(allowed ?? [])].sort((a, b) => a - b);
        return {
          count: ids.length,
          items: ids.slice(req.offset, req.offset + req.limit).map((id) => ({ id })),
        };
      }
      state.assertDescriptorsReady();
      const result = searchDescriptorTarget(state.table, parseDescriptorTarget(req.target), {
        k: req.limit,
        offset: req.offset,
        filter: allowed && rowSetOf(allowed),
      });
      return descriptorHits(result);
    },

    spaces() {
      return { names: listSimilaritySpaces().map((s) => s.name), defaultSpace: DEFAULT_SIMILARITY_SPACE };
    },

    descriptorNames() {
      const { scalars, vectors, labels } = state.table.descriptorNames();
      return {
        // String leaves (`tonal.key_key`) are one-dimensional fixed-length descriptors too, filtered
        // on with a quoted value (API.md, descriptors_filter rule 5).
        oneDimensional: [...scalars, ...labels].sort(),
        multiDimensional: vectors.map((v) => v.name),
        variableLength: [...VARIABLE_LENGTH_DESCRIPTORS].sort(),
      };
    },
  };

  function limitsOf(req: { signal?: AbortSignal }): SearchLimits {
    return { budgetMs, signal: req.signal };
  }
}

/**
 * The example's vector in the space it is compared in (see SearchExample), or undefined when no
 * space was named and the example lacks what the default space needs: it is then compared by the
 * descriptors a sound-id target compares.
 */
export function exampleSpaceVector(
  example: SearchExample,
): { space: string; vector: Float32Array } | undefined {
  const space = example.space ?? DEFAULT_SIMILARITY_SPACE;
  try {
    return { space, vector: exampleVector(space, example.tree) };
  } catch (error) {
    if (example.space === undefined && error instanceof InvalidAnalysisFileError) return undefined;
    throw error;
  }
}

function filterOf(req: FilterRequest): FilterRequest {
  return {
    query: req.query,
    filter: req.filter,
    descriptorsFilter: req.descriptorsFilter,
    signal: req.signal,
  };
}

function descriptorHits(result: DescriptorSearchResult): Hits {
  return {
    count: result.total,
    items: result.results.map((r) => ({ id: r.id, score: 1 / (1 + r.distance) })),
  };
}

function countIn(index: SimilarityIndex, ids: ReadonlySet<number>): number {
  let n = 0;
  for (const id of ids) if (index.has(id)) n++;
  return n;
}
