import { createRequire } from 'node:module';

type Hnswlib = typeof import('hnswlib-node');

// hnswlib-node (a native addon) is loaded when the first graph is made, not when the core is
// imported: a user who never builds an index never pays for it. Its CommonJS entry loads
// synchronously, so graphs are still made synchronously.
const require = createRequire(import.meta.url);
let hnswlib: Hnswlib | undefined;
function hnswlibModule(): Hnswlib {
  hnswlib ??= require('hnswlib-node') as Hnswlib;
  return hnswlib;
}

/** Graph parameters. Defaults suit 100-d descriptor vectors up to a few million sounds. */
export interface GraphParameters {
  /** Links per node (hnswlib M). */
  m: number;
  /** Candidate list size while inserting (hnswlib efConstruction). */
  efConstruction: number;
  /** Seed of hnswlib's level generator, so builds are reproducible. */
  seed: number;
}

export const DEFAULT_GRAPH_PARAMETERS: GraphParameters = { m: 16, efConstruction: 100, seed: 100 };

export interface GraphHits {
  labels: number[];
  /** Inner-product distance, 1 - dot(query, point). */
  distances: number[];
}

/**
 * The one adapter over hnswlib-node. It speaks Float32Array to the rest of the engine and converts
 * to the plain arrays the binding insists on. Inner-product space: callers store unit vectors, so
 * the distance is 1 - cosine. Every call is synchronous except load and save.
 */
export class HnswGraph {
  private constructor(
    private readonly native: InstanceType<Hnswlib['HierarchicalNSW']>,
    readonly dimension: number,
  ) {}

  static create(dimension: number, capacity: number, parameters: GraphParameters): HnswGraph {
    const native = new (hnswlibModule().HierarchicalNSW)('ip', dimension);
    native.initIndex({
      maxElements: Math.max(1, capacity),
      m: parameters.m,
      efConstruction: parameters.efConstruction,
      randomSeed: parameters.seed,
      allowReplaceDeleted: true,
    });
    return new HnswGraph(native, dimension);
  }

  /** Loads a saved graph on libuv's thread pool (the event loop stays free). */
  static async load(file: string, dimension: number): Promise<HnswGraph> {
    const native = new (hnswlibModule().HierarchicalNSW)('ip', dimension);
    await native.readIndex(file, true);
    return new HnswGraph(native, dimension);
  }

  /** Writes the graph on libuv's thread pool; the caller must not mutate it until this resolves. */
  async save(file: string): Promise<void> {
    await this.native.writeIndex(file);
  }

  get capacity(): number {
    return this.native.getMaxElements();
  }

  /** Slots in use, including those of marked-deleted points. */
  get slotCount(): number {
    return this.native.getCurrentCount();
  }

  resize(capacity: number): void {
    this.native.resizeIndex(capacity);
  }

  /** Inserts a new label (into a deleted slot when `reuseDeletedSlot`), or overwrites a live one. */
  add(label: number, vector: Float32Array, reuseDeletedSlot: boolean): void {
    this.native.addPoint(Array.from(vector), label, reuseDeletedSlot);
  }

  markDeleted(label: number): void {
    this.native.markDelete(label);
  }

  unmarkDeleted(label: number): void {
    this.native.unmarkDelete(label);
  }

  setEf(ef: number): void {
    if (this.native.getEf() !== ef) this.native.setEf(ef);
  }

  search(query: Float32Array, k: number, allow?: (label: number) => boolean): GraphHits {
    const result = this.native.searchKnn(Array.from(query), k, allow);
    return { labels: result.neighbors, distances: result.distances };
  }

  point(label: number): Float32Array {
    return Float32Array.from(this.native.getPoint(label));
  }

  /** Every label the graph holds, marked-deleted ones included. */
  labels(): number[] {
    return this.native.getIdsList();
  }
}
