import { DEFAULT_FACET_LIMIT, type FacetName, parseFilter } from '@earshot/catalogue';
import { NotFoundError, ValidationError } from '@earshot/common';
import type { ListRequest } from './api-context.ts';
import { pageWindow, resolvePage } from './paging.ts';
import type { ClipAnalyzer, Hits, SearchEngine } from './ports.ts';
import type { ExampleNote, Page, SoundRecord } from './records.ts';
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

/** Queries the contract treats as "no query": they return every sound. */
const EMPTY_QUERIES = new Set(['', '""', '" "', "''", "' '"]);

export class SearchService {
  constructor(
    private readonly engine: SearchEngine,
    private readonly records: SoundRecords,
    private readonly clips?: ClipAnalyzer,
  ) {}

  /** Text search, or similarity search when `similar_to` is given (then `query` is ignored). */
  async text(params: TextSearchParams, req: ListRequest): Promise<Page<SoundRecord>> {
    const filter = checkFilter(params.filter, 'filter');
    const { page, window } = requestedPage(req);
    let hits: Hits;
    if (params.similar_to !== undefined) {
      if (params.facets)
        throw new ValidationError(
          "Facets count the matches of a text search: 'facets' does not combine with 'similar_to'.",
        );
      const found = await this.engine.similar({
        space: this.space(params.similarity_space),
        target: parseSimilarTo(params.similar_to),
        filter,
        ...window,
      });
      if (!found)
        throw new NotFoundError('The sound given in similar_to does not exist or is not analyzed yet.');
      hits = found;
    } else {
      const query = (params.query ?? '').trim();
      hits = await this.engine.text({
        query: EMPTY_QUERIES.has(query) ? '' : query,
        filter,
        sort: params.sort || undefined,
        weights: params.weights || undefined,
        groupByPack: params.group_by_pack === '1',
        ...(params.facets
          ? { facets: { names: params.facets, limit: params.facet_limit ?? DEFAULT_FACET_LIMIT } }
          : {}),
        ...window,
      });
    }
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
    const descriptorsFilter = checkDescriptorsFilter(params.descriptors_filter, this.engine);
    const example = await this.example(exampleInput);
    // The contract: an analysis file overrides the target (so a blank target is no error then).
    const target = example ? undefined : checkFilter(params.target, 'target');
    if (target === undefined && descriptorsFilter === undefined && !example) {
      throw new ValidationError(
        "At least one parameter from Content Search ('target', 'analysis_file' or 'descriptors_filter') should be included in the request.",
      );
    }
    const { page, window } = requestedPage(req);
    const hits = await this.engine.content({
      target,
      example: example?.example,
      descriptorsFilter,
      ...window,
    });
    resolvePage(req.page, hits.count);
    return {
      ...(await this.records.page(hits, page, req.page.pageSize, req.reads)),
      ...exampleNote(example),
    };
  }

  /** Combined search with the contract's rules 1–4; the answer tells whether more follow, never a count. */
  async combined(
    params: CombinedSearchParams,
    req: ListRequest,
    exampleInput?: SearchExampleInput,
  ): Promise<CombinedResults> {
    const query = params.query === undefined ? undefined : params.query.trim();
    const filter = checkFilter(params.filter, 'filter');
    const hasExample = exampleInput?.analysisFile !== undefined || exampleInput?.audioFile !== undefined;
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
    // Checked after the rules: a request breaking them is refused before any clip is analyzed.
    const example = await this.example(exampleInput);
    const { page, window } = requestedPage(req);
    const hits = await this.engine.content({
      query: query === undefined || EMPTY_QUERIES.has(query) ? undefined : query,
      filter,
      target: example ? undefined : target,
      example: example?.example,
      descriptorsFilter,
      ...window,
    });
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
