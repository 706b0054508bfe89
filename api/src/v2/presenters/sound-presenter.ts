import type { SoundRecord } from '@earshot/catalogue';
import { normalizeAnalyses } from '../../application/normalized-analysis.ts';
import type { CatalogueReader, DescriptorReader, Hit } from '../../application/ports.ts';
import { pickAnalysis } from '../../application/variant-a-analysis.ts';
import { type LinkBase, type PageEnvelope, pageEnvelope } from '../../framework/http/pagination.ts';
import type { SoundJson } from './schemas.ts';
import { type SoundContext, type SoundExtras, serializeSound } from './sound.ts';
import type { Variant } from './sound-fields.ts';

/** Options of variant A's `descriptors` / `normalized` parameters. */
export interface VariantAOptions {
  descriptors?: string;
  normalized?: boolean;
}

/**
 * Turns ids (in result order) into serialized sounds: one catalogue read for the records, one
 * descriptor read when descriptor fields are selected. Ids the catalogue no longer shows become
 * null here, in place; pages leave them out (`soundsPage`, `readableSounds`).
 */
export class SoundPresenter {
  constructor(
    private readonly catalogue: CatalogueReader,
    private readonly descriptors: DescriptorReader,
    readonly variant: Variant,
  ) {}

  /** `records`: the hits' records when the caller read them already (with more, in one statement). */
  async present(
    hits: readonly Hit[],
    ctx: SoundContext,
    variantA: VariantAOptions = {},
    records?: readonly SoundRecord[],
  ): Promise<Array<SoundJson | null>> {
    records ??= await this.catalogue.soundsByIds(hits.map((h) => h.id));
    const byId = new Map(records.map((r) => [r.id, r]));
    const values =
      ctx.selection.descriptors.length > 0
        ? await this.descriptors.consolidatedMany(hits.flatMap((h) => (byId.has(h.id) ? [h.id] : [])))
        : undefined;
    const rows: Array<{ hit: Hit; record: SoundRecord; extras: SoundExtras } | null> = [];
    for (const hit of hits) {
      const record = byId.get(hit.id);
      if (!record) {
        rows.push(null);
        continue;
      }
      const extras: SoundExtras = { score: hit.score, descriptors: values?.get(hit.id) };
      if (this.variant === 'A') Object.assign(extras, await this.variantAExtras(record, ctx, variantA));
      rows.push({ hit, record, extras });
    }
    if (this.variant === 'A' && variantA.normalized) await this.normalize(rows);
    return rows.map((row) => {
      if (!row) return null;
      const sound = serializeSound(row.record, ctx, row.extras);
      if (row.hit.nFromSamePack !== undefined) sound.n_from_same_pack = row.hit.nFromSamePack;
      return sound;
    });
  }

  /** `normalized=1`: the page's `analysis` objects scaled with one read of the ranges they need. */
  private async normalize(rows: ReadonlyArray<{ extras: SoundExtras } | null>): Promise<void> {
    const withAnalysis = rows.flatMap((row) => (row?.extras.analysis ? [row.extras] : []));
    if (withAnalysis.length === 0) return;
    const normalized = await normalizeAnalyses(
      this.descriptors,
      withAnalysis.map((extras) => extras.analysis as Record<string, unknown>),
    );
    withAnalysis.forEach((extras, i) => {
      extras.analysis = normalized[i];
    });
  }

  private async variantAExtras(
    record: SoundRecord,
    ctx: SoundContext,
    options: VariantAOptions,
  ): Promise<SoundExtras> {
    const fields = ctx.selection.fields;
    if (!fields.includes('analysis') && !fields.includes('ac_analysis')) return {};
    const tree = record.analyzed ? await this.descriptors.analysisTree(record.id) : undefined;
    const extras: SoundExtras = {};
    if (fields.includes('analysis')) {
      extras.analysis = tree && options.descriptors ? pickAnalysis(tree, options.descriptors) : null;
    }
    if (fields.includes('ac_analysis') && record.analyzed) {
      extras.acAnalysis = (await this.descriptors.consolidated(record.id)) ?? null;
    }
    return extras;
  }
}

/**
 * Only the sounds that could be read. A hit without its sound is one that left the catalogue (or
 * stopped being visible) between the search and the read of the records, in any process: a page
 * shows it neither as null nor in its count, so what it lists and what it counts agree.
 */
export function readableSounds(results: ReadonlyArray<SoundJson | null>): SoundJson[] {
  return results.filter((sound): sound is SoundJson => sound !== null);
}

/** The envelope of a page of presented sounds, without the hits that could not be read. */
export function soundsPage(
  base: LinkBase,
  page: number,
  pageSize: number,
  count: number,
  results: ReadonlyArray<SoundJson | null>,
): PageEnvelope<SoundJson> {
  const readable = readableSounds(results);
  return pageEnvelope(base, page, pageSize, count - (results.length - readable.length), readable);
}
