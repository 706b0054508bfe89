// The bare floors of the realistic API rows (issue 18): a node:http server that answers each kind of
// request with only the SQL (and, for similar sounds, the graph query) that a minimal implementation
// needs for the same answer — no framework, no authentication, no rate limits, no caches, no
// serializers. The API is held against these in the same run.
//   /sound/<id>              one statement: the sound row with its user's name, its pack's name, its tags
//   /search?<v2 parameters>  the catalogue's own search statement, then the page's records
//   /similar/<id>            the graph's 15 nearest neighbours, then their records

import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { newestMarksExact, openCatalogue, publicVectorBatch, searchSounds } from '@earshot/catalogue';
import { createLogger, loadConfig } from '@earshot/common';
import { buildSimilarityIndexInWorker, SimilarityIndex } from '@earshot/core';
import pg from 'pg';

const SOUND_SQL = `select s.id, s.name, s.tags, s.description, s.license, s.type, s.channels, s.filesize,
    s.bitrate, s.bitdepth, s.duration, s.samplerate, s.created, s.num_downloads, s.avg_rating,
    s.num_ratings, s.num_comments, s.geotag_lat, s.geotag_lon, u.username, p.name as pack_name
  from sounds s join users u on u.id = s.user_id left join packs p on p.id = s.pack_id
  where s.id = $1`;

const RECORDS_SQL = `select s.id, s.name, s.tags, s.license, u.username
  from sounds s join users u on u.id = s.user_id where s.id = any($1::int[])`;

/** The statements of the floor, for the database-alone loop too. */
export const FLOOR_STATEMENTS = { sound: SOUND_SQL, records: RECORDS_SQL } as const;

const BATCH = 10_000;

/**
 * The space's graph: the snapshot the API's servers left in `dataDir` when it is of this very
 * catalogue (what a minimal implementation would keep too; at 1M sounds a build takes many
 * CPU-minutes), else built from the stored vectors.
 */
async function loadGraph(
  db: Parameters<typeof publicVectorBatch>[0],
  space: string,
  dataDir: string,
): Promise<SimilarityIndex | null> {
  try {
    const { index, meta } = await SimilarityIndex.loadWithMeta(path.join(dataDir, 'similarity', space));
    if (meta.position?.catalogue === (await newestMarksExact(db)).catalogue) return index;
  } catch {
    // No snapshot (or an unreadable one): build below.
  }
  const ids: number[] = [];
  const chunks: number[][] = [];
  for (let after = 0; ; ) {
    const rows = await publicVectorBatch(db, space, { afterId: after, limit: BATCH });
    for (const row of rows) {
      ids.push(row.id);
      chunks.push(row.vector.map(Number));
    }
    if (rows.length < BATCH) break;
    after = rows[rows.length - 1].id;
  }
  if (ids.length === 0) return null;
  const dimension = chunks[0].length;
  const vectors = new Float32Array(ids.length * dimension);
  chunks.forEach((v, i) => {
    vectors.set(v, i * dimension);
  });
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'earshot-floor-graph-'));
  return buildSimilarityIndexInWorker(dir, { ids, vectors }, { space });
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * Starts the floor on the bench database and prints its origin as a JSON line (the parent reads it).
 * `similar` builds the graph from the stored vectors first, as the API does at start.
 */
export async function runSqlFloor(
  dbUrl: string,
  options: { similar: boolean; poolSize: number; dataDir?: string },
) {
  const pool = new pg.Pool({ connectionString: dbUrl, max: options.poolSize });
  const logger = createLogger('warn');
  const config = loadConfig({ DATABASE_URL: dbUrl, DATA_DIR: path.join(os.tmpdir(), 'earshot-floor') });
  const catalogue = await openCatalogue({ config, logger, role: 'server', migrate: false });
  const graph = options.similar
    ? await loadGraph(catalogue.db, 'freesound_classic', options.dataDir ?? config.dataDir)
    : null;
  const records = async (ids: number[]) => {
    const { rows } = await pool.query(RECORDS_SQL, [ids]);
    const byId = new Map(rows.map((r) => [r.id as number, r]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  };
  const server = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://floor');
      const [, kind, idText] = url.pathname.split('/');
      if (kind === 'sound') {
        const { rows } = await pool.query(SOUND_SQL, [Number(idText)]);
        return rows.length ? send(res, 200, rows[0]) : send(res, 404, { detail: 'Not found' });
      }
      if (kind === 'search') {
        const q = url.searchParams;
        const pageSize = Number(q.get('page_size') ?? 15);
        const result = await searchSounds(catalogue, {
          query: q.get('query') ?? undefined,
          filter: q.get('filter') ?? undefined,
          sort: q.get('sort') ?? undefined,
          groupByPack: q.get('group_by_pack') ?? undefined,
          limit: pageSize,
          offset: (Number(q.get('page') ?? 1) - 1) * pageSize,
        });
        return send(res, 200, { count: result.count, results: await records(result.ids) });
      }
      if (kind === 'similar' && graph) {
        const neighbours = graph.nearestToSound(Number(idText), { k: 15 });
        const rows = await records(neighbours.map((n) => n.id));
        return send(res, 200, { results: rows });
      }
      send(res, 404, { detail: 'Not found' });
    } catch (error) {
      send(res, 500, { detail: (error as Error).message });
    }
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ origin: `http://127.0.0.1:${port}` })}\n`);
}
