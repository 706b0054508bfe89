import type { CommentView, PageRequest } from '@earshot/catalogue';
import { NotFoundError, ValidationError } from '@earshot/common';
import type { ListRequest } from './api-context.ts';
import { type ListWalks, SIMILARITY_WALK_MAX_SOUNDS } from './list-walks.ts';
import { normalizeAnalyses } from './normalized-analysis.ts';
import { pageWindow, resolvePage } from './paging.ts';
import type { CatalogueReader, DescriptorReader, SearchEngine } from './ports.ts';
import type { Page, SoundReads, SoundRecord, Variant } from './records.ts';
import { checkDescriptorsFilter } from './search.ts';
import type { SoundRecords } from './sound-records.ts';
import { pickAnalysis } from './variant-a-analysis.ts';

/** A sound that is missing, unapproved or unprocessed: one 404 wording for all, as upstream. */
export class SoundNotFound extends NotFoundError {
  constructor() {
    super('No Sound matches the given query.');
  }
}

export class SoundService {
  constructor(
    private readonly catalogue: CatalogueReader,
    private readonly descriptors: DescriptorReader,
    private readonly search: SearchEngine,
    private readonly records: SoundRecords,
    private readonly variant: Variant,
    private readonly walks: ListWalks,
  ) {}

  async instance(id: number, reads?: SoundReads): Promise<SoundRecord> {
    const [sound] = await this.records.read([{ id }], reads);
    if (!sound) throw new SoundNotFound();
    return sound;
  }

  /**
   * Variant B: the flat descriptor dictionary plus one vector per similarity space, filtered by
   * `fields` when given. Variant A: the analysis tree, or the `descriptors` picked from it, with
   * `normalized` values scaled over the catalogue's ranges.
   */
  async analysis(
    id: number,
    options: { fields?: string; descriptors?: string; normalized?: boolean },
  ): Promise<Record<string, unknown>> {
    const [sound] = await this.catalogue.soundsByIds([id]);
    if (!sound) throw new SoundNotFound();
    if (this.variant === 'A') {
      const tree = await this.descriptors.analysisTree(id);
      if (!tree) throw new NotFoundError('Analysis data for this sound is not available.');
      const picked = options.descriptors ? (pickAnalysis(tree, options.descriptors) ?? {}) : tree;
      if (!options.normalized) return picked;
      const [normalized] = await normalizeAnalyses(this.descriptors, [picked]);
      return normalized;
    }
    const values = await this.descriptors.consolidated(id);
    if (!values) throw new NotFoundError('Analysis data for this sound is not available.');
    const all: Record<string, unknown> = { ...values, ...(await this.descriptors.vectors(id)) };
    if (!options.fields) return all;
    const wanted = new Set(options.fields.split(','));
    return Object.fromEntries(Object.entries(all).filter(([name]) => wanted.has(name)));
  }

  /**
   * Similar sounds in a space, the target excluded; unknown or unanalyzed target: 404. Variant A
   * narrows the candidates with `descriptorsFilter` (content search's filter language).
   */
  async similar(
    id: number,
    options: { space?: string; descriptorsFilter?: string },
    req: ListRequest,
  ): Promise<Page<SoundRecord>> {
    const { space } = options;
    const descriptorsFilter =
      this.variant === 'A' ? checkDescriptorsFilter(options.descriptorsFilter, this.search) : undefined;
    const { names, defaultSpace } = this.search.spaces();
    const spaceName = space || defaultSpace;
    if (!names.includes(spaceName)) {
      throw new ValidationError(
        `Invalid similarity_space "${spaceName}"; available spaces: ${names.join(', ')}.`,
      );
    }
    const run = async (window: PageRequest) => {
      const hits = await this.search.similar({
        space: spaceName,
        target: { soundId: id },
        descriptorsFilter,
        ...window,
      });
      if (!hits) {
        // Not in the index: a sound not (yet) analyzed, or none at all.
        if ((await this.catalogue.soundsByIds([id])).length === 0) throw new SoundNotFound();
        throw new NotFoundError('This sound is not analyzed for similarity yet.');
      }
      return hits;
    };
    if (req.cursor !== undefined) {
      const walk = await this.walks.page(req.cursor, req.page.pageSize, {
        key: JSON.stringify(['similar', id, spaceName, descriptorsFilter ?? null]),
        max: SIMILARITY_WALK_MAX_SOUNDS,
        all: (limit) => run({ limit, offset: 0 }),
      });
      // The target is read with the page: a sound no longer public has no similar sounds to show.
      const rows = await this.catalogue.soundsByIds([id, ...walk.hits.items.map((h) => h.id)]);
      if (rows[0]?.id !== id) throw new SoundNotFound();
      return this.records.walkPage(walk, req.page.pageSize, req.reads, rows);
    }
    const page = req.page.page === 'last' ? 1 : req.page.page;
    const hits = await run(pageWindow(page, req.page.pageSize));
    // One read for the target (the index may still hold a sound the catalogue no longer shows)
    // and the page's neighbours.
    const rows = await this.catalogue.soundsByIds([id, ...hits.items.map((h) => h.id)]);
    if (rows[0]?.id !== id) throw new SoundNotFound();
    resolvePage(req.page, hits.count);
    return this.records.page(hits, page, req.page.pageSize, req.reads, rows);
  }

  async comments(id: number, req: ListRequest): Promise<Page<CommentView>> {
    const [sound] = await this.catalogue.soundsByIds([id]);
    if (!sound) throw new SoundNotFound();
    const first = await this.catalogue.soundComments(id, { limit: 0, offset: 0 });
    const { page } = resolvePage(req.page, first.count);
    const slice = await this.catalogue.soundComments(id, pageWindow(page, req.page.pageSize));
    return { ...slice, page, pageSize: req.page.pageSize };
  }
}
