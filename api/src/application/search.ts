import { DEFAULT_FACET_LIMIT, type FacetName, type PageRequest, parseFilter } from '@earshot/catalogue';
import { NotFoundError, ValidationError } from '@earshot/common';
import type { ListRequest } from './api-context.ts';
import { type ListWalks, SIMILARITY_WALK_MAX_SOUNDS, WALK_MAX_SOUNDS } from './list-walks.ts';
import { pageWindow, resolvePage } from './paging.ts';
import type { ClipAnalyzer, Hits, SearchEngine } from './ports.ts';
import type { ExampleNote, Page, SoundRecord, WalkCursors } from './records.ts';
import { type ResolvedExample, resolveExample, type SearchExampleInput } from './search-example.ts';
import type { SoundRecords } from './sound-records.ts';

/**
 * A combined search's answer: no count, only whether results follow this page (the contract's
 * `more`).
 */
export interface CombinedResults extends ExampleNote {
  items: SoundRecord[];
  page: number;
  pageSize: number;
  more: boolean;
  /** A page of a cursor walk: the cursors of its neighbours. */
  cursors?: WalkCursors;
}

export interface TextSearchParams {
  query?: string;
  filter?: string;
  sort?: string;
  weights?: string;
  group_by_pack?: string;
  similar_to?: string;
  similarity_space?: string;
  /** Facet names, checked by the route (issue 36); absent = no facets. */
  facets?: FacetName[];
  /** Values per facet (default DEFAULT_FACET_LIMIT). */
  facet_limit?: number;
}

export interface ContentSearchParams {
  target?: string;
  descriptors_filter?: string;
}

export type CombinedSearchParams = ContentSearchParams & Pick<TextSearchParams, 'query' | 'filter' | 'sort'>;

/** The parameters that name each search's list: a cursor continues only a walk of the same ones. */
const TEXT_KEYS = [
  'query',
  'filter',
  'sort',
  'weights',
  'group_by_pack',
  'similar_to',
  'similarity_space',
] as const;
const CONTENT_KEYS = ['target', 'descriptors_filter', 'similarity_space'] as const;
const COMBINED_KEYS = [
  'query',
  'filter',
  'sort',
  'target',
  'descriptors_filter',
  'similarity_space',
] as const;

function listKey<T extends object>(kind: string, params: T, names: readonly string[]): string {
  const values = params as Record<string, unknown>;
  return JSON.stringify([kind, ...names.map((name) => values[name] ?? null)]);
}

function exampleGiven(input: SearchExampleInput | undefined): boolean {
  return input?.analysisFile !== undefined || input?.audioFile !== undefined;
}

/** Queries the contract treats as "no query": they return every sound. */
const EMPTY_QUERIES = new Set(['', '""', '" "', "''", "' '"]);

export class SearchService {
  constructor(
    private readonly engine: SearchEngine,
    private readonly records: SoundRecords,
    private readonly walks: ListWalks,
    private readonly clips?: ClipAnalyzer,
  ) {}

  /** Text search, or similarity search when `similar_to` is given (then `query` is ignored). */
  async text(params: TextSearchParams, req: ListRequest): Promise<Page<SoundRecord>> {
    const filter = checkFilter(params.filter, 'filter');
    // `maxLimit`: a walk's first page reads every hit at once.
    let run: (window: PageRequest & { maxLimit?: number }) => Promise<Hits>;
    if (params.similar_to !== undefined) {
      if (params.facets)
        throw new ValidationError(
          "Facets count the matches of a text search: 'facets' does not combine with 'similar_to'.",
        );
      const space = this.space(params.similarity_space);
      const target = parseSimilarTo(params.similar_to);
      run = async ({ limit, offset }) => {
        const found = await this.engine.similar({ space, target, filter, limit, offset });
        if (!found)
          throw new NotFoundError('The sound given in similar_to does not exist or is not analyzed yet.');
        return found;
      };
    } else {
      const query = (params.query ?? '').trim();
      const facets = params.facets && {
        names: params.facets,
        limit: params.facet_limit ?? DEFAULT_FACET_LIMIT,
      };
      run = (window) =>
        this.engine.text({
          query: EMPTY_QUERIES.has(query) ? '' : query,
          filter,
          sort: params.sort || undefined,
          weights: params.weights || undefined,
          groupByPack: params.group_by_pack === '1',
          ...(facets ? { facets } : {}),
          ...window,
        });
    }
    if (req.cursor !== undefined) {
      if (params.facets)
        throw new ValidationError(
          "Facets are counted on a search's pages: 'facets' does not combine with 'cursor' (ask for them with 'page').",
        );
      const list = {
        key: listKey('text', params, TEXT_KEYS),
        max: Math.min(
          req.walkMax ?? WALK_MAX_SOUNDS,
          params.similar_to !== undefined ? SIMILARITY_WALK_MAX_SOUNDS : WALK_MAX_SOUNDS,
        ),
        all: (limit: number) => run({ limit, offset: 0, maxLimit: limit }),
      };
      const walk = await this.walks.page(req.cursor, req.page.pageSize, list);
      return this.records.walkPage(walk, req.page.pageSize, req.reads);
    }
    const { page, window } = requestedPage(req);
    const hits = await run(window);
    resolvePage(req.page, hits.count);
    const found = await this.records.page(hits, page, req.page.pageSize, req.reads);
    return hits.facets ? { ...found, facets: hits.facets } : found;
  }

  /** Content search: sounds sorted by closeness to a descriptor target and/or filtered by descriptors. */
  async content(
    params: ContentSearchParams,
    req: ListRequest,
    exampleInput?: SearchExampleInput,
  ): Promise<Page<SoundRecord> & ExampleNote> {
    if (req.cursor !== undefined) {
      // The walk's first page takes the example; the pages after it read the frozen list only.
      const list = {
        key: listKey('content', params, CONTENT_KEYS),
        max: exampleGiven(exampleInput) ? SIMILARITY_WALK_MAX_SOUNDS : WALK_MAX_SOUNDS,
        all: async (limit: number) =>
          (await this.contentHits(params, exampleInput, { limit, offset: 0 })).hits,
      };
      const walk = await this.walks.page(req.cursor, req.page.pageSize, list);
      return this.records.walkPage(walk, req.page.pageSize, req.reads);
    }
    const { page, window } = requestedPage(req);
    const { hits, example } = await this.contentHits(params, exampleInput, window);
    resolvePage(req.page, hits.count);
    return {
      ...(await this.records.page(hits, page, req.page.pageSize, req.reads)),
      ...exampleNote(example),
    };
  }

  private async contentHits(
    params: ContentSearchParams,
    exampleInput: SearchExampleInput | undefined,
    window: PageRequest,
  ): Promise<{ hits: Hits; example?: ResolvedExample }> {
    const descriptorsFilter = checkDescriptorsFilter(params.descriptors_filter, this.engine);
    const example = await this.example(exampleInput);
    // The contract: an analysis file overrides the target (so a blank target is no error then).
    const target = example ? undefined : checkFilter(params.target, 'target');
    if (target === undefined && descriptorsFilter === undefined && !example) {
      throw new ValidationError(
        "At least one parameter from Content Search ('target', 'analysis_file' or 'descriptors_filter') should be included in the request.",
      );
    }
    const hits = await this.engine.content({
      target,
      example: example?.example,
      descriptorsFilter,
      ...window,
    });
    return { hits, example };
  }

  /** Combined search with the contract's rules 1–4; the answer tells whether more follow, never a count. */
  async combined(
    params: CombinedSearchParams,
    req: ListRequest,
    exampleInput?: SearchExampleInput,
  ): Promise<CombinedResults> {
    const query = params.query === undefined ? undefined : params.query.trim();
    const filter = checkFilter(params.filter, 'filter');
    const hasExample = exampleGiven(exampleInput);
    // An example stands for the target in the contract's rules (and overrides a target sent with it).
    const target = hasExample ? 'example' : checkFilter(params.target, 'target');
    const descriptorsFilter = checkDescriptorsFilter(params.descriptors_filter, this.engine);
    if (query !== undefined && target !== undefined) {
      throw new ValidationError("'query' and 'target' can not be used together in a combined search.");
    }
    if (query === undefined && target === undefined) {
      throw new ValidationError("A combined search needs a 'query' or a 'target'.");
    }
    if (filter === undefined && descriptorsFilter === undefined) {
      throw new ValidationError("A combined search needs a 'filter' or a 'descriptors_filter' (or both).");
    }
    const hasText = query !== undefined || filter !== undefined;
    const hasContent = target !== undefined || descriptorsFilter !== undefined;
    if (!hasText || !hasContent) {
      throw new ValidationError(
        'A combined search needs at least one text parameter (query, filter) and one content parameter (target, descriptors_filter).',
      );
    }
    const run = async (window: PageRequest) => {
      // Checked after the rules: a request breaking them is refused before any clip is analyzed.
      const example = await this.example(exampleInput);
      const hits = await this.engine.content({
        query: query === undefined || EMPTY_QUERIES.has(query) ? undefined : query,
        filter,
        target: example ? undefined : target,
        example: example?.example,
        descriptorsFilter,
        ...window,
      });
      return { hits, example };
    };
    if (req.cursor !== undefined) {
      const list = {
        key: listKey('combined', params, COMBINED_KEYS),
        max: hasExample ? SIMILARITY_WALK_MAX_SOUNDS : WALK_MAX_SOUNDS,
        all: async (limit: number) => (await run({ limit, offset: 0 })).hits,
      };
      const walk = await this.walks.page(req.cursor, req.page.pageSize, list);
      return {
        items: await this.records.read(walk.hits.items, req.reads),
        page: 1,
        pageSize: req.page.pageSize,
        more: walk.cursors.next !== null,
        cursors: walk.cursors,
      };
    }
    const { page, window } = requestedPage(req);
    const { hits, example } = await run(window);
    return {
      items: await this.records.read(hits.items, req.reads),
      page,
      pageSize: req.page.pageSize,
      more: window.offset + hits.items.length < hits.count,
      ...exampleNote(example),
    };
  }

  private async example(input: SearchExampleInput | undefined): Promise<ResolvedExample | undefined> {
    if (input?.space !== undefined && input.space.trim() !== '') this.space(input.space.trim());
    return resolveExample(input, this.clips);
  }

  private space(name: string | undefined): string {
    const { names, defaultSpace } = this.engine.spaces();
    const space = name || defaultSpace;
    if (!names.includes(space)) {
      throw new ValidationError(
        `Invalid similarity_space "${space}"; available spaces: ${names.join(', ')}.`,
      );
    }
    return space;
  }
}

/**
 * A `descriptors_filter` (content, combined and similar-sounds search) checked as `checkFilter`
 * does and against the descriptors the engine holds: a name it does not list (or a per-sound list
 * such as `rhythm.onset_times`) would match no sound, so it is a 400 naming it. Before any sound
 * is analyzed every well-formed name is let through. The names are read only when a filter is given.
 */
export function checkDescriptorsFilter(
  value: string | undefined,
  engine: Pick<SearchEngine, 'descriptorNames'>,
): string | undefined {
  const descriptorsFilter = checkFilter(value, 'descriptors_filter');
  if (descriptorsFilter === undefined) return undefined;
  const names = engine.descriptorNames();
  const fixedLength = [...names.oneDimensional, ...names.multiDimensional];
  parseFilter(descriptorsFilter, {
    mode: 'descriptors',
    parameter: 'descriptors_filter',
    descriptorNames: fixedLength.length > 0 ? new Set(fixedLength) : undefined,
    variableLengthDescriptors: new Set(names.variableLength),
  });
  return descriptorsFilter;
}

function exampleNote(example: ResolvedExample | undefined): ExampleNote {
  const out: ExampleNote = {};
  if (example?.note) out.note = example.note;
  if (example?.analyzedSeconds !== undefined) out.analyzedSeconds = example.analyzedSeconds;
  return out;
}

/** Search paging has no `last`: the page number the answer is and the window the engine reads. */
function requestedPage(req: ListRequest) {
  const page = req.page.page === 'last' ? 1 : req.page.page;
  return { page, window: pageWindow(page, req.page.pageSize) };
}

/** A present-but-blank filter is an error (it would silently match everything). */
export function checkFilter(value: string | undefined, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === '') throw new ValidationError(`Invalid ${name}.`);
  return value;
}

function parseSimilarTo(value: string): { soundId: number } | { vector: number[] } {
  const text = value.trim();
  if (text.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (
      !Array.isArray(parsed) ||
      parsed.length === 0 ||
      !parsed.every((n) => typeof n === 'number' && Number.isFinite(n))
    ) {
      throw new ValidationError("The 'similar_to' parameter is not a valid serialized vector");
    }
    return { vector: parsed };
  }
  if (!/^\d{1,15}$/.test(text))
    throw new ValidationError("The 'similar_to' parameter is not a valid sound ID");
  return { soundId: Number(text) };
}
