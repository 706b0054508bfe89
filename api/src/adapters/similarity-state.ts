import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  analysesPublishedAfter,
  type Db,
  newestAnalysisUpdate,
  newestPublication,
  publicAnalysesUpdatedAfter,
  publicAnalysisBatch,
  publicVectorBatch,
  publicVectorsUpdatedAfter,
  vectorsPublishedAfter,
} from '@earshot/catalogue';
import type { Logger } from '@earshot/common';
import {
  buildSimilarityIndexInWorker,
  DescriptorTable,
  listSimilaritySpaces,
  SimilarityIndex,
} from '@earshot/core';

/** Rows read per round trip while loading, so 100k sounds never sit in one result set. */
const BATCH = 5000;
/** Below this many vectors the graph is built on the event loop; it takes milliseconds. */
const WORKER_BUILD_THRESHOLD = 2000;

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

  /** What answers computed from this state depend on: the indexes and the descriptor table. */
  get version(): string {
    return `${this.generation}:${this.table.version}`;
  }

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    private readonly workDir = path.join(os.tmpdir(), `earshot-api-similarity-${process.pid}`),
  ) {}

  /** Newest `updated` seen in the vector and descriptor tables; later rows are applied by `refresh`. */
  private since: Date | undefined;
  /** Newest moment a sound became public (approved, processed) seen; later ones are applied by `refresh`. */
  private publishedSince = new Date(0);

  /** Full load the first time; afterwards only what changed since the last load is applied. */
  async refresh(): Promise<void> {
    if (this.since) return this.applyChanges(this.since);
    const started = Date.now();
    const mark = await newestAnalysisUpdate(this.db);
    const published = await newestPublication(this.db);
    const indexes = new Map<string, SimilarityIndex>();
    for (const space of listSimilaritySpaces()) {
      indexes.set(space.name, await this.loadSpace(space.name, space.dimension));
    }
    const table = await this.loadDescriptors();
    this.indexes = indexes;
    this.table = table;
    this.generation++;
    this.since = mark;
    this.publishedSince = published;
    this.logger.info(
      {
        ms: Date.now() - started,
        spaces: [...indexes].map(([n, i]) => `${n}:${i.size}`),
        descriptors: table.size,
      },
      'similarity state loaded',
    );
  }

  private async applyChanges(since: Date): Promise<void> {
    const [mark, published] = await Promise.all([newestAnalysisUpdate(this.db), newestPublication(this.db)]);
    const analysed = mark > since;
    // A sound analysed while pending moderation is only taken in once it is approved.
    const newlyPublic = published > this.publishedSince;
    if (!analysed && !newlyPublic) return;
    const vectors = [
      ...(analysed ? await publicVectorsUpdatedAfter(this.db, since) : []),
      ...(newlyPublic ? await vectorsPublishedAfter(this.db, this.publishedSince) : []),
    ];
    for (const row of vectors) {
      const index = this.indexes.get(row.space);
      if (index && row.vector.length === index.space.dimension) index.upsert(row.id, row.vector.map(Number));
    }
    const analyses = [
      ...(analysed ? await publicAnalysesUpdatedAfter(this.db, since) : []),
      ...(newlyPublic ? await analysesPublishedAfter(this.db, this.publishedSince) : []),
    ];
    for (const row of analyses) this.table.upsertAnalysis(row.id, row.analysis_a);
    if (vectors.length > 0) this.generation++;
    this.since = mark;
    this.publishedSince = published;
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
      for (const row of rows) table.upsertAnalysis(row.id, row.analysis_a);
      if (rows.length < BATCH) break;
      after = rows[rows.length - 1].id;
    }
    return table;
  }

  async close(): Promise<void> {
    await fs.rm(this.workDir, { recursive: true, force: true });
  }
}
