import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Database } from '@earshot/catalogue';
import type { Logger } from '@earshot/common';
import {
  buildSimilarityIndexInWorker,
  DescriptorTable,
  listSimilaritySpaces,
  SimilarityIndex,
} from '@earshot/core';
import { type Kysely, sql } from 'kysely';

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
    private readonly db: Kysely<Database>,
    private readonly logger: Logger,
    private readonly workDir = path.join(os.tmpdir(), `earshot-api-similarity-${process.pid}`),
  ) {}

  /** Newest `updated` seen in the vector and descriptor tables; later rows are applied by `refresh`. */
  private since: Date | undefined;

  /** Full load the first time; afterwards only what changed since the last load is applied. */
  async refresh(): Promise<void> {
    if (this.since) return this.applyChanges(this.since);
    const started = Date.now();
    const mark = await this.newestUpdate();
    const indexes = new Map<string, SimilarityIndex>();
    for (const space of listSimilaritySpaces()) {
      indexes.set(space.name, await this.loadSpace(space.name, space.dimension));
    }
    const table = await this.loadDescriptors();
    this.indexes = indexes;
    this.table = table;
    this.generation++;
    this.since = mark;
    this.logger.info(
      {
        ms: Date.now() - started,
        spaces: [...indexes].map(([n, i]) => `${n}:${i.size}`),
        descriptors: table.size,
      },
      'similarity state loaded',
    );
  }

  private async newestUpdate(): Promise<Date> {
    const row = await sql<{ t: Date | null }>`select greatest(
        (select max(updated) from sound_similarity_vectors),
        (select max(updated) from sound_descriptors)) as t`.execute(this.db);
    return row.rows[0]?.t ? new Date(row.rows[0].t) : new Date(0);
  }

  private async applyChanges(since: Date): Promise<void> {
    const mark = await this.newestUpdate();
    if (mark <= since) return;
    const vectors = await visible(this.db)
      .innerJoin('sound_similarity_vectors as v', 'v.sound_id', 's.id')
      .where('v.updated', '>', since)
      .select(['s.id', 'v.space', 'v.vector'])
      .execute();
    for (const row of vectors) {
      const index = this.indexes.get(row.space);
      if (index && row.vector.length === index.space.dimension) index.upsert(row.id, row.vector.map(Number));
    }
    const analyses = await visible(this.db)
      .innerJoin('sound_descriptors as d', 'd.sound_id', 's.id')
      .where('d.updated', '>', since)
      .select(['s.id', 'd.analysis_a'])
      .execute();
    for (const row of analyses) this.table.upsertAnalysis(row.id, row.analysis_a);
    if (vectors.length > 0) this.generation++;
    this.since = mark;
    this.logger.debug({ vectors: vectors.length, analyses: analyses.length }, 'similarity state updated');
  }

  private async loadSpace(space: string, dimension: number): Promise<SimilarityIndex> {
    const ids: number[] = [];
    const chunks: Float32Array[] = [];
    let after = 0;
    for (;;) {
      const rows = await visible(this.db)
        .innerJoin('sound_similarity_vectors as v', 'v.sound_id', 's.id')
        .where('v.space', '=', space)
        .where('s.id', '>', after)
        .select(['s.id', 'v.vector'])
        .orderBy('s.id')
        .limit(BATCH)
        .execute();
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
      const rows = await visible(this.db)
        .innerJoin('sound_descriptors as d', 'd.sound_id', 's.id')
        .where('s.id', '>', after)
        .select(['s.id', 'd.analysis_a'])
        .orderBy('s.id')
        .limit(BATCH)
        .execute();
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

function visible(db: Kysely<Database>) {
  return db
    .selectFrom('sounds as s')
    .where('s.moderation_state', '=', 'ok')
    .where('s.processing_state', '=', 'Processed')
    .where(sql<boolean>`true`);
}
