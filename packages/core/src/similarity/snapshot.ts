import fs from 'node:fs/promises';
import path from 'node:path';
import { NotFoundError } from '@earshot/common/errors';
import { SnapshotError } from './errors.ts';
import { type GraphParameters, HnswGraph } from './hnsw-graph.ts';

const META_FILE = 'meta.json';
const FORMAT = 1;

/**
 * What travels with the graph file. hnswlib labels are the sound ids themselves, so the id↔label
 * mapping is the identity; what the binary file cannot tell us back is which labels are
 * marked deleted, so that list is kept here.
 */
/**
 * How far into the catalogue a snapshot reaches: every vector stored (`analysedUpTo`) and every
 * sound made public (`publishedUpTo`) up to these moments is in it. A loader catches up with the
 * rows after them; the catalogue stays the source of truth.
 */
export interface SnapshotPosition {
  /** The catalogue these moments are of; a snapshot of another catalogue is rebuilt, not caught up. */
  catalogue?: string;
  analysedUpTo: string;
  publishedUpTo: string;
}

export interface SnapshotMeta {
  format: number;
  space: string;
  dimension: number;
  parameters: GraphParameters;
  graphFile: string;
  liveCount: number;
  deleted: number[];
  savedAt: string;
  /** Absent in snapshots written for a build or bulk insert (those are not catalogue snapshots). */
  position?: SnapshotPosition;
}

export interface LoadedSnapshot {
  meta: SnapshotMeta;
  graph: HnswGraph;
}

/**
 * Saves a graph atomically: the graph goes to a fresh file name, then meta.json (naming that file)
 * replaces the old one by rename, which is the commit point; older graph files are removed last.
 * A crash at any step leaves the previous snapshot loadable.
 */
export async function writeSnapshot(
  dir: string,
  graph: HnswGraph,
  meta: Omit<SnapshotMeta, 'format' | 'graphFile' | 'savedAt'>,
): Promise<SnapshotMeta> {
  await fs.mkdir(dir, { recursive: true });
  const stamp = `${Date.now()}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const graphFile = `graph-${stamp}.hnsw`;
  await graph.save(path.join(dir, `${graphFile}.tmp`));
  await fs.rename(path.join(dir, `${graphFile}.tmp`), path.join(dir, graphFile));
  const full: SnapshotMeta = { format: FORMAT, graphFile, savedAt: new Date().toISOString(), ...meta };
  const metaTmp = path.join(dir, `${META_FILE}.${stamp}.tmp`);
  await fs.writeFile(metaTmp, JSON.stringify(full));
  await fs.rename(metaTmp, path.join(dir, META_FILE));
  for (const name of await fs.readdir(dir)) {
    if (name.startsWith('graph-') && name !== graphFile && !name.endsWith('.tmp')) {
      await fs.rm(path.join(dir, name), { force: true });
    }
  }
  return full;
}

export async function readSnapshotMeta(dir: string): Promise<SnapshotMeta> {
  let text: string;
  try {
    text = await fs.readFile(path.join(dir, META_FILE), 'utf8');
  } catch {
    throw new NotFoundError(`No similarity index snapshot in ${dir}`);
  }
  let meta: SnapshotMeta;
  try {
    meta = JSON.parse(text) as SnapshotMeta;
  } catch {
    throw new SnapshotError(dir, `Unreadable similarity snapshot meta in ${dir}`);
  }
  if (meta.format !== FORMAT)
    throw new SnapshotError(dir, `Unsupported similarity snapshot format ${meta.format} in ${dir}`);
  return meta;
}

export async function readSnapshot(dir: string): Promise<LoadedSnapshot> {
  const meta = await readSnapshotMeta(dir);
  const graph = await HnswGraph.load(path.join(dir, meta.graphFile), meta.dimension);
  return { meta, graph };
}
