// Worker-thread entry: builds (or extends) an HNSW graph from a flat vector matrix and leaves an
// atomic snapshot behind. hnswlib is synchronous, so this is where the long work runs.
import { parentPort, workerData } from 'node:worker_threads';
import { ValidationError } from '@earshot/common/errors';
import type { BuildMessage, BuildRequest } from './build-protocol.ts';
import { DEFAULT_GRAPH_PARAMETERS, HnswGraph } from './hnsw-graph.ts';
import { readSnapshot, writeSnapshot } from './snapshot.ts';
import { getSimilaritySpace } from './spaces/registry.ts';
import { normalizeVector } from './vector.ts';

const request = workerData as BuildRequest;
const post = (message: BuildMessage) => parentPort?.postMessage(message);

/** Normalizes one row; a bad row fails the whole build with a message naming its sound. */
function unitRow(space: string, dimension: number, id: number, row: Float32Array): Float32Array {
  try {
    return normalizeVector(space, dimension, row);
  } catch (error) {
    if (error instanceof ValidationError) throw new ValidationError(`Sound ${id}: ${error.message}`);
    throw error;
  }
}

async function build(): Promise<void> {
  const space = getSimilaritySpace(request.space);
  const { ids, vectors } = request;
  const dimension = space.dimension;
  let graph: HnswGraph;
  let parameters = { ...DEFAULT_GRAPH_PARAMETERS, ...request.parameters };
  const live = new Set<number>();
  const deleted = new Set<number>();
  if (request.baseDir) {
    const base = await readSnapshot(request.baseDir);
    graph = base.graph;
    parameters = base.meta.parameters;
    for (const label of base.meta.deleted) deleted.add(label);
    for (const label of graph.labels()) if (!deleted.has(label)) live.add(label);
  } else {
    graph = HnswGraph.create(dimension, ids.length, parameters);
  }
  const needed = graph.slotCount + ids.length;
  if (needed > graph.capacity) graph.resize(needed);

  const every = Math.max(1, Math.floor(ids.length / 100));
  for (let row = 0; row < ids.length; row++) {
    const id = ids[row];
    const unit = unitRow(space.name, dimension, id, vectors.subarray(row * dimension, (row + 1) * dimension));
    if (live.has(id)) {
      graph.add(id, unit, false);
    } else if (deleted.delete(id)) {
      graph.unmarkDeleted(id);
      graph.add(id, unit, false);
      live.add(id);
    } else {
      graph.add(id, unit, false);
      live.add(id);
    }
    if ((row + 1) % every === 0) post({ type: 'progress', done: row + 1, total: ids.length });
  }
  const meta = await writeSnapshot(request.dir, graph, {
    space: space.name,
    dimension,
    parameters,
    liveCount: live.size,
    deleted: [...deleted],
  });
  post({ type: 'done', meta });
}

build().catch((error: unknown) => {
  const err = error instanceof Error ? error : new Error(String(error));
  const status = (error as { status?: unknown }).status;
  post({
    type: 'error',
    name: err.name,
    message: err.message,
    status: typeof status === 'number' ? status : 500,
  });
});
