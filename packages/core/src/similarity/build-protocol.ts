import type { GraphParameters } from './hnsw-graph.ts';
import type { SnapshotMeta } from './snapshot.ts';

/** What the main thread sends the build worker. */
export interface BuildRequest {
  space: string;
  /** Snapshot directory to write. */
  dir: string;
  /** Snapshot to extend (bulk insert); absent for a fresh build. */
  baseDir?: string;
  ids: Uint32Array;
  /** Row i (dimension values) is the vector of ids[i]; any length, normalized in the worker. */
  vectors: Float32Array;
  parameters?: Partial<GraphParameters>;
}

export type BuildMessage =
  | { type: 'progress'; done: number; total: number }
  | { type: 'done'; meta: SnapshotMeta }
  | { type: 'error'; name: string; message: string; status: number };
