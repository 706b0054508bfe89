import type { PageRequest } from '@earshot/catalogue';
import { EarshotError, NotFoundError, ValidationError } from '@earshot/common';
import { type ListWalks, WALK_MAX_SOUNDS } from '../list-walks.ts';
import type { CatalogueReader, DescriptorReader, Hit, SearchEngine } from '../ports.ts';
import type { SoundRecord } from '../records.ts';
import type { SoundRecords } from '../sound-records.ts';
import { pickV1Analysis } from './analysis-path.ts';
import { type V1ListRequest, v1Window } from './paging.ts';
import type { LegacyReader } from './ports.ts';
import { type V1SoundPageRecord, type V1SoundRecord, v1Page } from './records.ts';

export const V1_SIMILAR_DEFAULT = 15;
export const V1_SIMILAR_MAX = 100;
/** Version 1 presets; both are served by the default similarity space. */
const PRESETS = new Set(['lowlevel', 'music']);

export interface GeotagBox {
  min_lat?: string;
  max_lat?: string;
  min_lon?: string;
  max_lon?: string;
}

/** A valid request that cannot be answered yet: the contract's 409. */
export class AnalysisNotReady extends EarshotError {
  constructor(id: number) {
    super(`The analysis of sound ${id} is not available yet.`, 'analysis_not_ready', 409);
  }
}

export class SoundNotFoundV1 extends NotFoundError {
  constructor(id: number) {
    super(`Sound with id ${id} does not exist.`);
  }
}

/** The version 1 sound resources: instance, geotag box, analysis, similar sounds, original file. */
export class LegacySounds {
  constructor(
    private readonly catalogue: CatalogueReader,
    private readonly records: SoundRecords,
    private readonly engine: SearchEngine,
    private readonly descriptors: DescriptorReader,
    private readonly legacy: LegacyReader,
    private readonly walks: ListWalks,
  ) {}

  async instance(id: number): Promise<SoundRecord> {
    const [sound] = await this.records.read([{ id }]);
    if (!sound) throw new SoundNotFoundV1(id);
    return sound;
  }

  /** Geotagged sounds inside a box (bounds default to the whole world), newest first. */
  async geotagged(box: GeotagBox, req: V1ListRequest): Promise<V1SoundPageRecord> {
    const minLat = readCoordinate(box.min_lat, 'min_lat', -90, 90, -90);
    const maxLat = readCoordinate(box.max_lat, 'max_lat', -90, 90, 90);
    const minLon = readCoordinate(box.min_lon, 'min_lon', -180, 180, -180);
    const maxLon = readCoordinate(box.max_lon, 'max_lon', -180, 180, 180);
    if (minLat > maxLat) throw new ValidationError('min_lat must not be greater than max_lat.');
    if (minLon > maxLon) throw new ValidationError('min_lon must not be greater than max_lon.');
    const run = (window: PageRequest & { maxLimit?: number }) =>
      this.engine.text({
        query: '',
        filter: `geotag:"Intersects(${minLon} ${minLat} ${maxLon} ${maxLat})"`,
        sort: 'created_desc',
        groupByPack: false,
        ...window,
      });
    if (req.cursor !== undefined) {
      const walk = await this.walks.page(req.cursor, req.page.perPage, {
        key: JSON.stringify(['v1-geotag', minLat, maxLat, minLon, maxLon]),
        max: WALK_MAX_SOUNDS,
        all: (limit) => run({ limit, offset: 0, maxLimit: limit }),
      });
      return v1Page(req.page, walk.hits.count, await this.records.read(walk.hits.items), walk.cursors);
    }
    const hits = await run(v1Window(req.page));
    return v1Page(req.page, hits.count, await this.records.read(hits.items));
  }

  /**
   * The analysis tree, or the branch a slash path names; the recommended descriptors unless
   * `all`. 409 while the sound is still being analyzed, 404 when its analysis failed.
   */
  async analysis(id: number, path: string, all: boolean): Promise<unknown> {
    const state = await this.legacy.analysisState(id);
    if (state === 'missing') throw new SoundNotFoundV1(id);
    if (state === 'pending') throw new AnalysisNotReady(id);
    const tree = state === 'ready' ? await this.descriptors.analysisTree(id) : undefined;
    if (!tree) throw new NotFoundError(`Analysis of sound ${id} failed or is unavailable.`);
    const picked = pickV1Analysis(tree, path, all);
    if (picked === undefined) throw new ValidationError('Could not find this path in the analysis data.');
    return picked;
  }

  /**
   * The queried sound first with `distance` 0.0, then its nearest neighbours (`num_results` in
   * all); an empty list when the sound is not indexed for similarity yet.
   */
  async similar(
    id: number,
    params: { num_results?: string; preset?: string },
    req: V1ListRequest,
  ): Promise<V1SoundPageRecord> {
    const wanted = readNumResults(params.num_results);
    const preset = params.preset || 'lowlevel';
    if (!PRESETS.has(preset)) {
      throw new ValidationError(`Invalid preset "${preset}"; available presets: lowlevel, music.`);
    }
    const [record] = await this.catalogue.soundsByIds([id]);
    if (!record) throw new SoundNotFoundV1(id);
    const space = this.engine.spaces().defaultSpace;
    /** The list: the sound itself, then its neighbours; none while it is not indexed. */
    const all = async (): Promise<Hit[]> => {
      const neighbours =
        wanted > 1
          ? await this.engine.similar({ space, target: { soundId: id }, limit: wanted - 1, offset: 0 })
          : undefined;
      if (!neighbours && !record.similarity_ready) return [];
      return [{ id, score: 1 }, ...(neighbours?.items ?? [])];
    };
    // Scores are (1 + cosine) / 2: the cosine distance is twice the way down from 1.
    const withDistance = (records: V1SoundRecord[]) =>
      records.map((r) => ({ ...r, distance: r.sound.id === id ? 0 : round(2 * (1 - (r.score ?? 1))) }));
    if (req.cursor !== undefined) {
      const walk = await this.walks.page(req.cursor, req.page.perPage, {
        key: JSON.stringify(['v1-similar', id, space, wanted]),
        max: wanted,
        all: async () => {
          const hits = await all();
          return { count: hits.length, items: hits };
        },
      });
      const sounds = withDistance(await this.records.read(walk.hits.items));
      return v1Page(req.page, walk.hits.count, sounds, walk.cursors);
    }
    const hits = await all();
    const window = v1Window(req.page);
    const sounds = await this.records.read(hits.slice(window.offset, window.offset + window.limit));
    return v1Page(req.page, hits.length, withDistance(sounds));
  }

  async original(id: number): Promise<{ path: string; filename: string }> {
    const file = await this.legacy.originalFile(id);
    if (!file) throw new SoundNotFoundV1(id);
    return file;
  }
}

const round = (n: number) => Math.max(0, Math.round(n * 1e6) / 1e6);

function readNumResults(raw: string | undefined): number {
  if (raw === undefined || raw === '') return V1_SIMILAR_DEFAULT;
  if (!/^\s*\d{1,9}\s*$/.test(raw) || Number(raw) < 1) {
    throw new ValidationError(
      `Invalid value for parameter 'num_results': "${raw}" is not a positive integer.`,
    );
  }
  return Math.min(V1_SIMILAR_MAX, Number(raw));
}

function readCoordinate(
  raw: string | undefined,
  name: string,
  min: number,
  max: number,
  fallback: number,
): number {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!/^\s*[+-]?(\d+\.?\d*|\.\d+)\s*$/.test(raw) || n < min || n > max) {
    throw new ValidationError(
      `Invalid value for parameter '${name}': it must be a number from ${min} to ${max}.`,
    );
  }
  return n;
}
