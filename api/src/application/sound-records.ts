import type { Page as CataloguePage, SoundRecord as CatalogueSound } from '@earshot/catalogue';
import { normalizeAnalyses } from './normalized-analysis.ts';
import type { CatalogueReader, DescriptorReader, Hit, Hits } from './ports.ts';
import type { Page, SoundReads, SoundRecord, WalkCursors } from './records.ts';
import { pickAnalysis } from './variant-a-analysis.ts';

/** Whether `reads` asks for anything a sound's row does not hold (descriptors, analyses, vectors). */
export function asksBeyondRow(reads: SoundReads): boolean {
  return Boolean(reads.descriptors?.length || reads.analysis || reads.acAnalysis || reads.vectors);
}

/**
 * Turns hits (ids in result order) into sound records: one catalogue read for the rows, one
 * descriptor read when descriptor values are asked. A hit whose sound the catalogue no longer shows
 * is left out: it left the catalogue (or stopped being visible) between the search and the read,
 * in any process.
 */
export class SoundRecords {
  constructor(
    private readonly catalogue: Pick<CatalogueReader, 'soundsByIds'>,
    private readonly descriptors: DescriptorReader,
  ) {}

  /** `rows`: the hits' rows when the caller read them already (with more, in one statement). */
  async read(
    hits: readonly Hit[],
    reads: SoundReads = {},
    rows?: readonly CatalogueSound[],
  ): Promise<SoundRecord[]> {
    rows ??= await this.catalogue.soundsByIds(
      hits.map((h) => h.id),
      reads.columns,
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    const values = reads.descriptors?.length
      ? await this.descriptors.consolidatedMany(hits.flatMap((h) => (byId.has(h.id) ? [h.id] : [])))
      : undefined;
    const out: SoundRecord[] = [];
    for (const hit of hits) {
      const row = byId.get(hit.id);
      if (!row) continue;
      const record: SoundRecord = { sound: row };
      if (hit.score !== undefined) record.score = hit.score;
      if (hit.distanceToTarget !== undefined) record.distanceToTarget = hit.distanceToTarget;
      const descriptors = values?.get(hit.id);
      if (descriptors) record.descriptors = descriptors;
      if (hit.nFromSamePack !== undefined)
        record.samePack = { count: hit.nFromSamePack, grouping: hit.packGrouping };
      if (reads.analysis || reads.acAnalysis) Object.assign(record, await this.variantA(row, reads));
      if (reads.vectors) record.vectors = await this.descriptors.vectors(row.id);
      out.push(record);
    }
    if (reads.analysis?.normalized) await this.normalize(out);
    return out;
  }

  /**
   * A page of hits as records. The hits that could not be read are left out of the count too, so
   * what a page lists and what it counts agree.
   */
  async page(
    hits: CataloguePage<Hit>,
    page: number,
    pageSize: number,
    reads?: SoundReads,
    rows?: readonly CatalogueSound[],
  ): Promise<Page<SoundRecord>> {
    const items = await this.read(hits.items, reads, rows);
    return { items, count: hits.count - (hits.items.length - items.length), page, pageSize };
  }

  /**
   * A page of a cursor walk as records. Its count is the walk's length, the same on every page: a
   * sound that stopped being public since the walk began is left out of its page only.
   */
  async walkPage(
    walk: { hits: Hits; offset: number; cursors: WalkCursors },
    pageSize: number,
    reads?: SoundReads,
    rows?: readonly CatalogueSound[],
  ): Promise<Page<SoundRecord>> {
    const items = await this.read(walk.hits.items, reads, rows);
    return {
      items,
      count: walk.hits.count,
      page: 1,
      pageSize,
      cursors: walk.cursors,
      walkOffset: walk.offset,
    };
  }

  /** `normalized=1`: the page's analyses scaled with one read of the ranges they need. */
  private async normalize(records: SoundRecord[]): Promise<void> {
    const withAnalysis = records.filter((r) => r.analysis);
    if (withAnalysis.length === 0) return;
    const normalized = await normalizeAnalyses(
      this.descriptors,
      withAnalysis.map((r) => r.analysis as Record<string, unknown>),
    );
    withAnalysis.forEach((record, i) => {
      record.analysis = normalized[i];
    });
  }

  private async variantA(row: CatalogueSound, reads: SoundReads): Promise<Partial<SoundRecord>> {
    const added: Partial<SoundRecord> = {};
    if (reads.analysis) {
      const tree = row.analyzed ? await this.descriptors.analysisTree(row.id) : undefined;
      added.analysis = tree && reads.analysis.pick ? pickAnalysis(tree, reads.analysis.pick) : null;
    }
    if (reads.acAnalysis && row.analyzed) {
      added.acAnalysis = (await this.descriptors.consolidated(row.id)) ?? null;
    }
    return added;
  }
}
