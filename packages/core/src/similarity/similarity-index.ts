import { ValidationError } from '@earshot/common/errors';
import { SnapshotError, SoundNotIndexedError } from './errors.ts';
import { DEFAULT_GRAPH_PARAMETERS, type GraphParameters, HnswGraph } from './hnsw-graph.ts';
import { readSnapshot, type SnapshotMeta, type SnapshotPosition, writeSnapshot } from './snapshot.ts';
import { getSimilaritySpace } from './spaces/registry.ts';
import type { SimilaritySpace } from './spaces/space.ts';
import { TopK } from './top-k.ts';
import { assertSoundId, normalizeVector, scoreFromCosine, type VectorInput } from './vector.ts';

/**
 * Restricts results to some sounds (combined search: those that pass the text filter). A Set is
 * better than a function when it is small: up to `exactScanLimit` members are scored exactly,
 * without walking the graph, so a rare filter still returns its k best.
 */
export type SoundFilter = ((id: number) => boolean) | ReadonlySet<number>;

export interface NearestOptions {
  /** How many neighbours (default 15). */
  k?: number;
  filter?: SoundFilter;
  /** Drop neighbours scoring below this, in [0, 1] (Freesound uses 0.7). */
  minScore?: number;
  /** hnswlib ef for this query; defaults to the index's efSearch. Larger is slower and more exact. */
  ef?: number;
}

/**
 * One result. `score` = (1 + cosine) / 2 in [0, 1] (1 identical direction, 0.5 unrelated);
 * `distance` = 1 - cosine in [0, 2], the cosine distance.
 */
export interface Neighbour {
  id: number;
  score: number;
  distance: number;
}

export interface SimilarityIndexOptions {
  space?: string;
  /** Initial slot count; the graph grows by half again whenever it is full. */
  capacity?: number;
  parameters?: Partial<GraphParameters>;
  efSearch?: number;
  exactScanLimit?: number;
}

const DEFAULT_K = 15;
const DEFAULT_EF_SEARCH = 64;
const DEFAULT_EXACT_SCAN_LIMIT = 2048;

/**
 * The HNSW index of one similarity space, keyed by sound id (hnswlib labels are the ids).
 * Mutations and queries are synchronous and short (well under a millisecond each at 100-d); bulk
 * builds go through `buildSimilarityIndexInWorker`. While a snapshot or a bulk insert is running,
 * mutations queue and apply when it completes, so the saved file is a consistent picture.
 */
export class SimilarityIndex {
  private readonly live = new Set<number>();
  /** Labels marked deleted in the graph (a hint: hnswlib may since have reused their slot). */
  private readonly deleted = new Set<number>();
  private busy: Promise<unknown> | null = null;
  private pending: Array<() => void> = [];
  /** Ids upserted while busy, so a remove queued after them is not refused. */
  private readonly queuedUpserts = new Set<number>();
  efSearch: number;
  exactScanLimit: number;

  private constructor(
    readonly space: SimilaritySpace,
    private graph: HnswGraph,
    readonly parameters: GraphParameters,
    options: SimilarityIndexOptions,
  ) {
    this.efSearch = options.efSearch ?? DEFAULT_EF_SEARCH;
    this.exactScanLimit = options.exactScanLimit ?? DEFAULT_EXACT_SCAN_LIMIT;
  }

  static create(options: SimilarityIndexOptions = {}): SimilarityIndex {
    const space = getSimilaritySpace(options.space);
    const parameters = { ...DEFAULT_GRAPH_PARAMETERS, ...options.parameters };
    const graph = HnswGraph.create(space.dimension, options.capacity ?? 1024, parameters);
    return new SimilarityIndex(space, graph, parameters, options);
  }

  /** Loads a snapshot written by `snapshot` (or by a worker build); the graph loads off the event loop. */
  static async load(
    dir: string,
    options: Omit<SimilarityIndexOptions, 'space'> = {},
  ): Promise<SimilarityIndex> {
    return (await SimilarityIndex.loadWithMeta(dir, options)).index;
  }

  /** As `load`, with the snapshot's meta (its catalogue position among others). */
  static async loadWithMeta(
    dir: string,
    options: Omit<SimilarityIndexOptions, 'space'> = {},
  ): Promise<{ index: SimilarityIndex; meta: SnapshotMeta }> {
    const { meta, graph } = await readSnapshot(dir);
    const space = getSimilaritySpace(meta.space);
    if (space.dimension !== meta.dimension) {
      throw new SnapshotError(
        dir,
        `Snapshot in ${dir} has ${meta.dimension} dimensions; ${space.name} has ${space.dimension}`,
      );
    }
    const index = new SimilarityIndex(space, graph, meta.parameters, options);
    index.adoptGraph(graph, meta);
    return { index, meta };
  }

  /** Sounds currently answerable (removed ones excluded). */
  get size(): number {
    return this.live.size;
  }

  has(id: number): boolean {
    return this.live.has(id);
  }

  ids(): number[] {
    return [...this.live];
  }

  /** Adds a sound, or replaces its vector. The vector is validated and L2-normalized. */
  upsert(id: number, vector: VectorInput): void {
    assertSoundId(id);
    const unit = normalizeVector(this.space.name, this.space.dimension, vector);
    if (this.busy) this.queuedUpserts.add(id);
    this.whenIdle(() => this.applyUpsert(id, unit));
  }

  /** Takes a sound out of every result. Returns false when it was not indexed (nor queued to be). */
  remove(id: number): boolean {
    assertSoundId(id);
    const known = this.live.has(id) || this.queuedUpserts.has(id);
    if (!known) return false;
    this.queuedUpserts.delete(id);
    this.whenIdle(() => {
      if (!this.live.has(id)) return;
      this.graph.markDeleted(id);
      this.live.delete(id);
      this.deleted.add(id);
    });
    return true;
  }

  /** The stored (unit-length) vector of a sound. */
  vectorOf(id: number): Float32Array {
    assertSoundId(id);
    if (!this.live.has(id)) throw new SoundNotIndexedError(id);
    return this.graph.point(id);
  }

  /** Nearest sounds to an indexed sound, that sound excluded. */
  nearestToSound(id: number, options: NearestOptions = {}): Neighbour[] {
    return this.search(this.vectorOf(id), options, id);
  }

  /** Nearest sounds to a vector of this space (validated and L2-normalized first). */
  nearestToVector(vector: VectorInput, options: NearestOptions = {}): Neighbour[] {
    return this.search(normalizeVector(this.space.name, this.space.dimension, vector), options);
  }

  /** Writes an atomic snapshot (graph + meta) to `dir`; mutations wait until it is on disk. */
  async snapshot(dir: string, position?: SnapshotPosition): Promise<SnapshotMeta> {
    while (this.busy) await this.busy;
    return this.runExclusive(() => this.writeTo(dir, position));
  }

  /**
   * For bulk inserts in a worker thread: snapshots the index to `baseDir`, runs `work` (which
   * leaves an extended snapshot in `dir`), then swaps that in. Mutations made meanwhile queue
   * and apply on top of the new graph, so none is lost.
   */
  async extendThroughSnapshot(baseDir: string, dir: string, work: () => Promise<void>): Promise<void> {
    while (this.busy) await this.busy;
    await this.runExclusive(async () => {
      await this.writeTo(baseDir);
      await work();
      const { meta, graph } = await readSnapshot(dir);
      if (meta.space !== this.space.name)
        throw new SnapshotError(dir, `Snapshot in ${dir} is for ${meta.space}`);
      this.adoptGraph(graph, meta);
    });
  }

  private writeTo(dir: string, position?: SnapshotPosition): Promise<SnapshotMeta> {
    const deleted = this.graph.labels().filter((label) => !this.live.has(label));
    return writeSnapshot(dir, this.graph, {
      space: this.space.name,
      dimension: this.space.dimension,
      parameters: this.parameters,
      liveCount: this.live.size,
      deleted,
      ...(position ? { position } : {}),
    });
  }

  private adoptGraph(graph: HnswGraph, meta: SnapshotMeta): void {
    this.graph = graph;
    this.live.clear();
    this.deleted.clear();
    const deleted = new Set(meta.deleted);
    for (const label of graph.labels()) {
      if (deleted.has(label)) this.deleted.add(label);
      else this.live.add(label);
    }
  }

  private async runExclusive<T>(work: () => Promise<T>): Promise<T> {
    const running = work();
    this.busy = running;
    try {
      return await running;
    } finally {
      this.busy = null;
      this.queuedUpserts.clear();
      const queued = this.pending;
      this.pending = [];
      for (const apply of queued) apply();
    }
  }

  private whenIdle(apply: () => void): void {
    if (this.busy) this.pending.push(apply);
    else apply();
  }

  private applyUpsert(id: number, unit: Float32Array): void {
    if (this.live.has(id)) {
      this.graph.add(id, unit, false);
      return;
    }
    if (this.deleted.delete(id) && this.tryRevive(id)) {
      this.graph.add(id, unit, false);
      this.live.add(id);
      return;
    }
    // Every slot not held by a live sound belongs to a marked-deleted one, which hnswlib can reuse.
    const vacant = this.graph.slotCount - this.live.size;
    if (vacant === 0 && this.graph.slotCount >= this.graph.capacity) {
      this.graph.resize(Math.ceil(this.graph.capacity * 1.5) + 16);
    }
    this.graph.add(id, unit, vacant > 0);
    this.live.add(id);
  }

  /** Unmarks a deleted label; false when hnswlib has since given its slot to another sound. */
  private tryRevive(id: number): boolean {
    try {
      this.graph.unmarkDeleted(id);
      return true;
    } catch {
      return false;
    }
  }

  private search(unit: Float32Array, options: NearestOptions, exclude?: number): Neighbour[] {
    const k = options.k ?? DEFAULT_K;
    if (!Number.isInteger(k) || k < 1) throw new ValidationError(`k must be a positive integer, got ${k}`);
    const minScore = options.minScore ?? 0;
    if (typeof minScore !== 'number' || !(minScore >= 0 && minScore <= 1)) {
      throw new ValidationError(`minScore must be between 0 and 1, got ${minScore}`);
    }
    const ef = options.ef ?? this.efSearch;
    if (!Number.isInteger(ef) || ef < 1)
      throw new ValidationError(`ef must be a positive integer, got ${ef}`);

    const filter = options.filter;
    const hits =
      filter instanceof Set && filter.size <= this.exactScanLimit
        ? this.scoreCandidates(unit, k, filter, exclude)
        : this.walkGraph(unit, k, ef, filter, exclude);
    const out: Neighbour[] = [];
    for (const hit of hits) {
      const score = scoreFromCosine(1 - hit.cost);
      if (score >= minScore) out.push({ id: hit.id, score, distance: hit.cost });
    }
    return out;
  }

  private walkGraph(
    unit: Float32Array,
    k: number,
    ef: number,
    filter: SoundFilter | undefined,
    exclude: number | undefined,
  ): Array<{ id: number; cost: number }> {
    const available = this.live.size - (exclude !== undefined && this.live.has(exclude) ? 1 : 0);
    const want = Math.min(k, available);
    if (want <= 0) return [];
    if (!filter) {
      // One extra instead of a filter callback: calling into JS per visited node costs more.
      const request = Math.min(want + (exclude === undefined ? 0 : 1), this.live.size);
      this.graph.setEf(Math.max(ef, request));
      const { labels, distances } = this.graph.search(unit, request);
      return labels
        .map((id, i) => ({ id, cost: distances[i] }))
        .filter((hit) => hit.id !== exclude)
        .slice(0, want);
    }
    const passes = typeof filter === 'function' ? filter : (id: number) => filter.has(id);
    const allow = exclude === undefined ? passes : (id: number) => id !== exclude && passes(id);
    // A selective filter leaves the beam short of k; widen it until k pass or the whole graph was seen.
    for (let beam = Math.max(ef, want); ; beam = Math.min(this.live.size, beam * 8)) {
      this.graph.setEf(beam);
      const { labels, distances } = this.graph.search(unit, want, allow);
      if (labels.length >= want || beam >= this.live.size) {
        return labels.map((id, i) => ({ id, cost: distances[i] }));
      }
    }
  }

  private scoreCandidates(
    unit: Float32Array,
    k: number,
    candidates: ReadonlySet<number>,
    exclude: number | undefined,
  ): Array<{ id: number; cost: number }> {
    const top = new TopK(Math.min(k, candidates.size)); // never more places than candidates
    for (const id of candidates) {
      if (id === exclude || !this.live.has(id)) continue;
      const point = this.graph.point(id);
      let dot = 0;
      for (let j = 0; j < unit.length; j++) dot += unit[j] * point[j];
      top.offer(id, 1 - dot);
    }
    return top.sorted();
  }
}
