import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  analysesPublishedAfter,
  type Db,
  isCatalogueUnavailable,
  newestAnalysisUpdate,
  newestMarksExact,
  publicAnalysesUpdatedAfter,
  publicAnalysisBatch,
  publicVectorBatch,
  publicVectorIds,
  publicVectorsUpdatedAfter,
  runExclusiveTask,
  vectorsPublishedAfter,
} from '@earshot/catalogue';
import { EarshotError, type Logger, NotFoundError } from '@earshot/common';
import {
  buildSimilarityIndexInWorker,
  DescriptorTable,
  listSimilaritySpaces,
  SimilarityIndex,
  type SnapshotPosition,
} from '@earshot/core';

/** Rows read per round trip while loading, so 100k sounds never sit in one result set. */
const BATCH = 5000;
/** Below this many vectors the graph is built on the event loop; it takes milliseconds. */
const WORKER_BUILD_THRESHOLD = 2000;

/** What a similarity answer gets while the indexes are still loading or being rebuilt. */
export class SimilarityLoading extends EarshotError {
  constructor() {
    super('The similarity index is loading; similarity search answers again in a moment', 'unavailable', 503);
  }
}

export interface SimilarityStateOptions {
  /**
   * Folder of the snapshots (`<dir>/<space>/meta.json` + graph). With it the first load starts
   * from each space's snapshot and catches up from the catalogue; without it, or when a snapshot
   * is missing, corrupt or of another dimension, the space is rebuilt from the catalogue.
   */
  snapshotDir?: string;
  /** Scratch folder of worker-thread builds. */
  workDir?: string;
  /**
   * Finding deleted (or hidden) sounds costs a scan of every public id of a space, so after
   * changes it runs at most this often (default 5 s). 0: on every refresh.
   */
  vanishedCheckMs?: number;
}

/** Where similarity snapshots live in a data folder (the API and `earshot index snapshot` agree on it). */
export function similaritySnapshotDir(dataDir: string): string {
  return path.join(dataDir, 'similarity');
}

/** The catalogue-wide lock name: one process at a time writes snapshots into a data folder. */
const SNAPSHOT_TASK = 'earshot:similarity-snapshot';

/**
 * The in-memory similarity state the API queries: one HNSW index per space and the descriptor
 * table for content search, loaded from the catalogue's stored vectors and analyses of visible
 * sounds. `refresh()` then applies what the pipeline added since (sounds that stop being visible
 * are dropped from results by the catalogue read, which only returns visible sounds).
 */
export class SimilarityState {
  indexes = new Map<string, SimilarityIndex>();
  table = new DescriptorTable();
  /** Changes whenever the indexes change, so answers computed from them can be reused until then. */
  generation = 0;
  /** Spaces the first load rebuilt from the catalogue, having no usable snapshot. */
  rebuilt: readonly string[] = [];

  /** What answers computed from this state depend on: the indexes and the descriptor table. */
  get version(): string {
    return `${this.generation}:${this.table.version}`;
  }

  private readonly workDir: string;
  private readonly snapshotDir: string | undefined;
  private readonly vanishedCheckMs: number;
  private lastVanishedCheck = 0;
  private vanishedTimer: NodeJS.Timeout | undefined;
  private firstLoad: Promise<void> | undefined;
  private ready = false;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    options: SimilarityStateOptions = {},
  ) {
    this.workDir = options.workDir ?? path.join(os.tmpdir(), `earshot-api-similarity-${process.pid}`);
    this.snapshotDir = options.snapshotDir;
    this.vanishedCheckMs = options.vanishedCheckMs ?? 5_000;
  }

  /** True once every space's index answers (what /ready reports as "similarity loaded"). */
  isReady(): boolean {
    return this.ready;
  }

  /** Throws the 503 a similarity answer gets while the indexes load. */
  assertReady(): void {
    if (!this.ready) throw new SimilarityLoading();
  }

  /** As `assertReady`, for answers from the descriptor table (loaded after the indexes). */
  assertDescriptorsReady(): void {
    if (!this.since) throw new SimilarityLoading();
  }

  /** Set by the first load (the newest `updated` of the vectors and descriptors then): `refresh` then applies what came after `position`. */
  private since: Date | undefined;
  /** The marks of the last load or refresh to the microsecond: what a snapshot written now covers. */
  private position: SnapshotPosition | undefined;

  /** Full load the first time; afterwards only what changed since the last load is applied. */
  async refresh(): Promise<void> {
    if (this.since) return this.applyChanges();
    // One first load at a time; a refresh asked for meanwhile waits for it.
    this.firstLoad ??= this.loadAll().finally(() => {
      this.firstLoad = undefined;
    });
    return this.firstLoad;
  }

  private async loadAll(): Promise<void> {
    const started = Date.now();
    // Read before the rows: whatever is stored later is applied by the next refresh.
    const mark = await newestAnalysisUpdate(this.db);
    const exact = await newestMarksExact(this.db);
    const indexes = new Map<string, SimilarityIndex>();
    const sources: string[] = [];
    const rebuilt: string[] = [];
    for (const space of listSimilaritySpaces()) {
      const fromSnapshot = await this.openSnapshot(space.name, exact.catalogue);
      sources.push(`${space.name}:${fromSnapshot ? 'snapshot' : 'rebuild'}`);
      if (!fromSnapshot) rebuilt.push(space.name);
      indexes.set(space.name, fromSnapshot ?? (await this.loadSpace(space.name, space.dimension)));
    }
    // Similar sounds answer from here on; the descriptor table follows.
    this.indexes = indexes;
    this.rebuilt = rebuilt;
    this.generation++;
    this.ready = true;
    const indexMs = Date.now() - started;
    const table = await this.loadDescriptors();
    this.table = table;
    this.since = mark;
    this.position = {
      catalogue: exact.catalogue,
      analysedUpTo: exact.analysed,
      publishedUpTo: exact.published,
    };
    this.logger.info(
      {
        ms: Date.now() - started,
        indexMs,
        sources,
        spaces: [...indexes].map(([n, i]) => `${n}:${i.size}`),
        descriptors: table.size,
      },
      'similarity state loaded',
    );
  }

  /**
   * The space's snapshot brought up to date from the catalogue, or undefined (logged) when there
   * is none usable: then the caller rebuilds.
   */
  private async openSnapshot(space: string, catalogue: string): Promise<SimilarityIndex | undefined> {
    if (!this.snapshotDir) return undefined;
    const started = Date.now();
    try {
      const { index, meta } = await SimilarityIndex.loadWithMeta(path.join(this.snapshotDir, space));
      if (meta.space !== space) throw new Error(`the snapshot is of space ${meta.space}`);
      if (!meta.position) throw new Error('the snapshot has no catalogue position');
      if (meta.position.catalogue !== catalogue)
        throw new Error(`the snapshot is of another catalogue (${meta.position.catalogue ?? 'unnamed'})`);
      const loadedMs = Date.now() - started;
      const caught = await this.catchUp(index, meta.position);
      this.logger.info(
        { space, size: index.size, savedAt: meta.savedAt, loadedMs, ms: Date.now() - started, ...caught },
        'similarity index loaded from its snapshot',
      );
      return index;
    } catch (err) {
      // No snapshot yet is the normal first start; anything else deserves a warning.
      if (err instanceof NotFoundError)
        this.logger.info({ space }, 'no similarity snapshot; building the index');
      else
        this.logger.warn(
          { err, space },
          'similarity snapshot not usable; rebuilding the index from the catalogue',
        );
      return undefined;
    }
  }

  /** Applies what the catalogue stored after the snapshot's position, and drops what it no longer shows. */
  private async catchUp(
    index: SimilarityIndex,
    position: SnapshotPosition,
  ): Promise<{ upserted: number; removed: number }> {
    const { analysedUpTo, publishedUpTo } = position;
    if (Number.isNaN(Date.parse(analysedUpTo)) || Number.isNaN(Date.parse(publishedUpTo))) {
      throw new Error('the snapshot position is not a pair of timestamps');
    }
    // The exact (microsecond) text goes back to the database: a Date would re-read every row
    // stored in the position's last millisecond (all of them after a bulk load).
    const rows = [
      ...(await publicVectorsUpdatedAfter(this.db, analysedUpTo)),
      ...(await vectorsPublishedAfter(this.db, publishedUpTo)),
    ];
    let upserted = 0;
    for (const row of rows) {
      if (row.space !== index.space.name || row.vector.length !== index.space.dimension) continue;
      index.upsert(row.id, row.vector.map(Number));
      upserted++;
    }
    const removed = await this.dropVanished(index);
    return { upserted, removed };
  }

  /** Removes the sounds the catalogue no longer shows (deleted, hidden, vector gone); how many. */
  private async dropVanished(index: SimilarityIndex): Promise<number> {
    const shown = new Set(await publicVectorIds(this.db, index.space.name));
    let removed = 0;
    for (const id of index.ids()) {
      if (!shown.has(id) && index.remove(id)) removed++;
    }
    return removed;
  }

  /**
   * Writes each space's snapshot with the catalogue position it covers, unless another process
   * holds the catalogue-wide snapshot lock (then answers false). The files are written atomically.
   */
  async writeSnapshots(): Promise<boolean> {
    const snapshotDir = this.snapshotDir;
    if (!snapshotDir) throw new Error('no snapshot folder configured');
    if (!this.since) await this.refresh();
    const position = this.position;
    if (!position) throw new Error('the similarity state is not loaded');
    const indexes = [...this.indexes.values()];
    const wrote = await runExclusiveTask(this.db, SNAPSHOT_TASK, async () => {
      for (const index of indexes) await index.snapshot(path.join(snapshotDir, index.space.name), position);
      return true;
    });
    return wrote ?? false;
  }

  /**
   * A deletion moves no mark, so every refresh looks for vanished sounds (an id scan), at most
   * every vanishedCheckMs; a check that is due then runs when that time is up.
   */
  private async checkVanished(): Promise<void> {
    const wait = this.lastVanishedCheck + this.vanishedCheckMs - Date.now();
    if (wait > 0) {
      this.vanishedTimer ??= setTimeout(() => {
        this.vanishedTimer = undefined;
        this.checkVanished().catch((err) =>
          this.logger.error({ err }, 'similarity: finding deleted sounds failed'),
        );
      }, wait);
      this.vanishedTimer.unref();
      return;
    }
    this.lastVanishedCheck = Date.now();
    let removed = 0;
    for (const index of this.indexes.values()) removed += await this.dropVanished(index);
    if (removed > 0) {
      this.generation++;
      this.logger.debug({ removed }, 'similarity state dropped vanished sounds');
    }
  }

  private async applyChanges(): Promise<void> {
    const previous = this.position;
    if (!previous) return;
    // The marks are compared and queried as the database's own text, to the microsecond. As a Date
    // (to the millisecond) every row stored in the mark's last millisecond looked new at each
    // refresh: after a bulk load that is every row, re-indexed on the event loop at the first change
    // (the cluster rehearsal saw every API process stall for seconds at its first upload).
    const [mark, exact] = await Promise.all([newestAnalysisUpdate(this.db), newestMarksExact(this.db)]);
    const analysed = exact.analysed !== previous.analysedUpTo;
    // A sound analysed while pending moderation is only taken in once it is approved.
    const newlyPublic = exact.published !== previous.publishedUpTo;
    await this.checkVanished();
    if (!analysed && !newlyPublic) return;
    const vectors = [
      ...(analysed ? await publicVectorsUpdatedAfter(this.db, previous.analysedUpTo) : []),
      ...(newlyPublic ? await vectorsPublishedAfter(this.db, previous.publishedUpTo) : []),
    ];
    for (const row of vectors) {
      const index = this.indexes.get(row.space);
      if (index && row.vector.length === index.space.dimension) index.upsert(row.id, row.vector.map(Number));
    }
    const analyses = [
      ...(analysed ? await publicAnalysesUpdatedAfter(this.db, previous.analysedUpTo) : []),
      ...(newlyPublic ? await analysesPublishedAfter(this.db, previous.publishedUpTo) : []),
    ];
    for (const row of analyses)
      this.table.upsertAnalysis(row.id, row.analysis_a, row.consolidated ?? undefined);
    if (vectors.length > 0) this.generation++;
    this.since = mark;
    this.position = {
      catalogue: exact.catalogue,
      analysedUpTo: exact.analysed,
      publishedUpTo: exact.published,
    };
    this.logger.debug({ vectors: vectors.length, analyses: analyses.length }, 'similarity state updated');
  }

  private async loadSpace(space: string, dimension: number): Promise<SimilarityIndex> {
    const ids: number[] = [];
    const chunks: Float32Array[] = [];
    let after = 0;
    for (;;) {
      const rows = await publicVectorBatch(this.db, space, { afterId: after, limit: BATCH });
      for (const row of rows) {
        if (row.vector.length !== dimension) continue;
        ids.push(row.id);
        chunks.push(Float32Array.from(row.vector.map(Number)));
      }
      if (rows.length < BATCH) break;
      after = rows[rows.length - 1].id;
    }
    const vectors = new Float32Array(ids.length * dimension);
    for (let i = 0; i < chunks.length; i++) vectors.set(chunks[i], i * dimension);
    if (ids.length < WORKER_BUILD_THRESHOLD) {
      const index = SimilarityIndex.create({ space, capacity: Math.max(16, ids.length) });
      for (let i = 0; i < ids.length; i++)
        index.upsert(ids[i], vectors.subarray(i * dimension, (i + 1) * dimension));
      return index;
    }
    const dir = path.join(this.workDir, `${space}-${Date.now()}`);
    await fs.mkdir(dir, { recursive: true });
    return buildSimilarityIndexInWorker(dir, { ids, vectors }, { space });
  }

  private async loadDescriptors(): Promise<DescriptorTable> {
    const table = new DescriptorTable();
    let after = 0;
    for (;;) {
      const rows = await publicAnalysisBatch(this.db, { afterId: after, limit: BATCH });
      for (const row of rows) table.upsertAnalysis(row.id, row.analysis_a, row.consolidated ?? undefined);
      if (rows.length < BATCH) break;
      after = rows[rows.length - 1].id;
    }
    return table;
  }

  async close(): Promise<void> {
    if (this.vanishedTimer) clearTimeout(this.vanishedTimer);
    await fs.rm(this.workDir, { recursive: true, force: true });
  }
}

/**
 * A failed refresh is logged as a bug, unless the database was out of reach: that passes, the next
 * refresh catches up, and a warning says so without a stack per attempt.
 */
export function logSimilarityFailure(logger: Logger, err: unknown): void {
  if (isCatalogueUnavailable(err))
    logger.warn({ err: (err as Error).message }, 'similarity refresh: database unreachable');
  else logger.error({ err }, 'similarity refresh failed');
}
