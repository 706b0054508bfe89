// API load benchmark (issue 8): 100k synthetic sounds in the PostgreSQL server (database
// earshot_api_bench_<n>, reused between runs; --reseed rebuilds it), the API server in one child
// process, a bare node:http server returning the same precomputed sound JSON (the floor) in
// another, and autocannon in this process as the load generator.
// The realistic rows (issue 18, realistic-workload.ts) ask what real traffic asks — uniform sound ids,
// Zipf-distributed searches over 10,000 distinct ones made of the catalogue's words, uniform similar
// and combined targets — each beside a bare node:http server running only the SQL a minimal
// implementation needs for the same answer (sql-floor.ts), in alternating rounds; `↳ … PostgreSQL
// alone` rows give the database's own throughput for those statements. `--only realistic` runs them.
//   npx earshot bench api [--sounds 100000] [--duration 8] [--connections 50] [--reseed]
//     [--only word,word] [--no-split] [--rounds 3]   (short runs while iterating; they do not write the results,
//     except `--only realistic`, which writes its own section of them, and `--v1-section`, which
//     writes the rows run as a dated version 1 section) [--profile-api DIR] (the API's CPU profile)
// Version 1's rows (issue 16) are held against their version 2 equivalent: the v2 request that
// selects the same sounds with the same information (30 a page, `fields` naming what the v1 record
// carries), hot (the page cache) and cold (every request a different page).

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { openCatalogue, searchSounds } from '@earshot/catalogue';
import { createLogger, loadConfig } from '@earshot/common';
import { filterSetsFromCatalogue } from '@earshot/services';
import autocannon from 'autocannon';
import pg from 'pg';
import {
  apiBenchDatabase,
  apiBenchDataDir,
  ensureApiBenchCatalogue,
  runApiBenchServer,
  searchIndexBuilt,
} from './api-bench-catalogue.ts';
import { arg } from './args.ts';
import { cpuMicros } from './processes.ts';
import {
  combinedSearches,
  queryLog,
  searchParams,
  seededRandom,
  streamShape,
  type TextSearch,
  uniformIds,
} from './realistic-workload.ts';
import { FLOOR_STATEMENTS, runSqlFloor } from './sql-floor.ts';

const sounds = Number(arg('sounds', '100000'));
const duration = Number(arg('duration', '8'));
const connections = Number(arg('connections', '50'));
const role = arg('role', 'main');
// While iterating: `--only text,combined` runs the floor and the scenarios whose names contain one
// of the words; `--no-split` skips the catalogue-alone rows. The recorded table runs everything.
const only = arg('only', '')
  .split(',')
  .map((w) => w.trim())
  .filter(Boolean);
const split = !process.argv.includes('--no-split');
// `--only realistic`: the realistic rows with their database-alone rows, written as a section of
// the results file (one per catalogue size).
const realisticOnly = only.length === 1 && only[0] === 'realistic';
// A row held against another (`versus`) is measured in this many alternating rounds with it, on a
// shared machine the only fair comparison: the verdict is the median of the per-round ratios.
const rounds = Number(arg('rounds', '3'));
const { dbName, dbUrl } = apiBenchDatabase(sounds);
const here = path.dirname(fileURLToPath(import.meta.url));
const resultsFile = path.join(here, '..', 'results', 'api.md');
const logger = createLogger('warn');

// ---------------------------------------------------------------- child: the floor
async function runFloor(): Promise<void> {
  const body = fs.readFileSync(arg('body-file', ''), 'utf8');
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ origin: `http://127.0.0.1:${port}` })}\n`);
}

// ---------------------------------------------------------------- child: the replay
/**
 * A bare node:http server answering each path with the body the API answered it with (read once,
 * before the load): what the bytes alone cost, the same pages with no work behind them.
 */
async function runReplay(): Promise<void> {
  const pages = JSON.parse(fs.readFileSync(arg('bodies-file', ''), 'utf8')) as Array<[string, string]>;
  const bodies = new Map(pages.map(([p, body]) => [p, Buffer.from(body, 'base64')]));
  const server = http.createServer((req, res) => {
    const body = bodies.get(req.url ?? '');
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
    res.end(body);
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ origin: `http://127.0.0.1:${port}` })}\n`);
}

/** Reads each path's body from the API, for the replay (its content, not its timing). */
async function writeReplayBodies(origin: string, paths: string[], key: string, file: string) {
  const pages: Array<[string, string]> = [];
  for (const p of paths) {
    const res = await fetch(`${origin}${p}`, { headers: { Authorization: `Token ${key}` } });
    if (res.status !== 200) throw new Error(`${p} answered ${res.status}`);
    pages.push([p, Buffer.from(await res.arrayBuffer()).toString('base64')]);
  }
  fs.writeFileSync(file, JSON.stringify(pages));
}

/** Each path's body size (bytes) as the API answers it. */
async function pageSizes(origin: string, paths: string[]): Promise<number[]> {
  const sizes: number[] = [];
  for (const p of paths) sizes.push((await (await fetch(`${origin}${p}`)).arrayBuffer()).byteLength);
  return sizes;
}

const meanBytes = (xs: number[]) => Math.round(xs.reduce((a, b) => a + b, 0) / xs.length);

// ---------------------------------------------------------------- main
const ensureDatabase = () => ensureApiBenchCatalogue(sounds, process.argv.includes('--reseed'));

function spawnRole(roleName: string, extra: string[] = [], nodeFlags: string[] = []) {
  const child = spawn(
    process.execPath,
    [
      ...nodeFlags,
      '--import',
      'tsx',
      fileURLToPath(import.meta.url),
      '--role',
      roleName,
      '--sounds',
      String(sounds),
      ...extra,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const origin = new Promise<string>((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout });
    lines.once('line', (line) => resolve((JSON.parse(line) as { origin: string }).origin));
    child.once('exit', (code) => reject(new Error(`${roleName} exited with ${code}`)));
  });
  return { child, origin };
}

interface Scenario {
  name: string;
  origin: () => string;
  paths: string[];
  target: string;
  /**
   * Each request takes the next path of one counter shared by all connections (cold rows). Without
   * it every connection walks the list from its start, so 50 connections ask the same path at
   * about the same time and one computation answers them all.
   */
  distinct?: boolean;
  /** The row this one is held against (version 1 rows: within 10% of version 2's req/s). */
  versus?: string;
  /** The share of `versus`'s req/s this row must reach (default 0.9). */
  atLeast?: number;
  /** The p99 this row must stay under, with `versus` (ms). */
  p99Within?: number;
  /**
   * Absolute targets besides the ratio (issue 33's text search): p50 (ms), req/s, and at most
   * `times` the cost of another row's request (its req/s over this one's).
   */
  absolute?: { p50Within: number; rpsAtLeast: number; costOf: string; times: number };
  /** The serving process: its CPU time per request is measured too (Linux; a shared machine's fair figure). */
  pid?: number;
}

interface Row {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** Answers received in the measured window (0 means nothing came back in time). */
  total: number;
  target: string;
  /** Rows held against another: req/s over the other's in each alternating round. */
  ratios?: number[];
  /** Rows held against another: this row's p99 in each round (ms). */
  p99s?: number[];
  /** The serving process's CPU µs per answer (rows with a `pid`). */
  cpuUs?: number;
  /** Rows held against another: the other's CPU µs per answer over this row's, each round. */
  cpuRatios?: number[];
}

const cursors = new Map<string, number>();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * `rounds` alternating runs of the row and the row it is held against: the row's median run (by
 * req/s) with the per-round ratios, so load from other work falls on both alike.
 */
async function alternate(scenario: Scenario, against: Scenario, key: string): Promise<Row> {
  const runs: Row[] = [];
  const ratios: number[] = [];
  const cpuRatios: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const other = await load(against, key);
    const mine = await load(scenario, key);
    runs.push(mine);
    ratios.push(mine.rps / other.rps);
    if (mine.cpuUs && other.cpuUs) cpuRatios.push(other.cpuUs / mine.cpuUs);
  }
  const mid = median(runs.map((run) => run.rps));
  const row = runs.find((run) => run.rps === mid) as Row;
  return {
    ...row,
    ratios,
    p99s: runs.map((run) => run.p99),
    cpuRatios: cpuRatios.length > 0 ? cpuRatios : undefined,
  };
}

/** `cpuMicros` of one process; undefined when it is not ours to read (no pid, no /proc). */
function processCpuMicros(pid: number | undefined): number | undefined {
  if (pid === undefined || !fs.existsSync(`/proc/${pid}/task`)) return undefined;
  return cpuMicros([pid]);
}

async function load(scenario: Scenario, key: string): Promise<Row> {
  const options = {
    url: scenario.origin(),
    connections,
    headers: { Authorization: `Token ${key}` },
    requests: scenario.distinct
      ? [
          {
            method: 'GET' as const,
            path: scenario.paths[0],
            setupRequest: (req: { path?: string }) => ({
              ...req,
              path: scenario.paths[next++ % scenario.paths.length],
            }),
          },
        ]
      : scenario.paths.map((p) => ({ method: 'GET' as const, path: p })),
  };
  // A distinct row walks its list from where its last run stopped: a row measured in several rounds
  // must not ask again what its caches answered in the round before.
  let next = cursors.get(scenario.name) ?? 0;
  // A short unmeasured run first: both servers are measured warm (JIT, caches, pool connections).
  await autocannon({ ...options, duration: 2 });
  await drain(scenario.origin());
  const cpuBefore = processCpuMicros(scenario.pid);
  const result = await autocannon({ ...options, duration });
  const cpuAfter = processCpuMicros(scenario.pid);
  cursors.set(scenario.name, next);
  if (result.errors + result.timeouts > 0)
    process.stdout.write(`(socket errors ${result.errors}, timeouts ${result.timeouts}) `);
  return {
    name: scenario.name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    total: result.requests.total,
    target: scenario.target,
    cpuUs:
      cpuBefore !== undefined && cpuAfter !== undefined && result.requests.total > 0
        ? (cpuAfter - cpuBefore) / result.requests.total
        : undefined,
  };
}

/**
 * Waits until the server has worked off what the last load left queued (requests autocannon gave
 * up on keep their database queries running): otherwise one scenario's backlog is charged to the
 * next one's latency. Idle = `/health` (one database round trip) answers in under 20 ms.
 */
async function drain(origin: string): Promise<void> {
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    const started = performance.now();
    await fetch(`${origin}/health`).then((r) => r.arrayBuffer());
    if (performance.now() - started < 20) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * The catalogue's part alone, in this process: `connections` loops calling `call` for the
 * scenario's duration, so the API's figures can be split into catalogue SQL and the API's own work.
 */
async function loadCall(name: string, target: string, calls: Array<() => Promise<unknown>>): Promise<Row> {
  const latencies: number[] = [];
  let errors = 0;
  const end = Date.now() + duration * 1000;
  let next = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < end) {
        const call = calls[next++ % calls.length];
        const started = performance.now();
        try {
          await call();
          latencies.push(performance.now() - started);
        } catch {
          errors++;
        }
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
  return {
    name,
    rps: latencies.length / duration,
    p50: at(0.5),
    p99: at(0.99),
    errors,
    non2xx: 0,
    total: latencies.length,
    target,
  };
}

/** Representative text searches: words, two words, a filter with a sort, words with a filter. */
const TEXT_SEARCHES: Array<Record<string, string>> = [
  { query: 'dog', fields: 'id,name,username' },
  { query: 'drum kick', fields: 'id,name,tags' },
  { filter: 'tag:ambient duration:[1 TO 10]', sort: 'downloads_desc' },
  { query: 'rain', filter: 'license:"Creative Commons 0"', sort: 'created_desc' },
];

/**
 * The version 2 fields that carry what version 1's default (collection) record carries, each v1
 * field by its v2 name: id, type, duration, original_filename (`name`), user (`username`), tags,
 * url, serve (`download`), similarity (`similar_sounds`), the four previews (`previews`), the four
 * images (`images`), analysis_stats and analysis_frames (`analysis_files`), pack. Version 1 still
 * writes more bytes for them (`ref`, `analysis`, and the user's `url` and `ref` have no version 2
 * field; `analysis` and `analysis_stats` are the same link under the contract's and upstream's
 * names), so its pages stay ~20% larger: that difference is version 1's contract, not padding.
 */
const V2_FIELDS_OF_V1_RECORD =
  'id,url,name,tags,type,duration,username,pack,download,previews,images,similar_sounds,analysis_files';

/** Version 1 field names by their version 2 names, for the two searches that ask for `fields`. */
const V1_NAME: Record<string, string> = { name: 'original_filename', username: 'user' };

/** A version 2 text search in version 1's parameters (`q`, `f`, `s`; v1 field names; v1's 30 a page). */
function v1Search(q: Record<string, string>, extra: Record<string, string> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  if (q.query !== undefined) out.q = q.query;
  if (q.filter !== undefined) out.f = q.filter;
  if (q.sort !== undefined) out.s = q.sort;
  if (q.fields !== undefined)
    out.fields = q.fields
      .split(',')
      .map((f) => V1_NAME[f] ?? f)
      .join(',');
  return { ...out, ...extra };
}

/**
 * The version 2 request that selects the same sounds with the same information as `v1Search(q)`:
 * version 1's page size (30, or `perPage`) and `fields` naming what the v1 record carries.
 */
function v2Equivalent(q: Record<string, string>, perPage = 30, page = 1): Record<string, string> {
  return {
    ...q,
    fields: q.fields ?? V2_FIELDS_OF_V1_RECORD,
    page_size: String(perPage),
    ...(page > 1 ? { page: String(page) } : {}),
  };
}

/**
 * Distinct page requests of the four searches (page size 5–84 × the pages that exist at that size,
 * at most 50), for the cold rows, in a seeded random order. Only pages inside the results: past
 * the end version 2 answers a quick 404 where version 1 answers an empty page, which would not be
 * the same work. `counts` are the searches' result counts. The v2 row takes the even places of
 * the list and the v1 row the odd ones (`half`): the same mix of requests, none asked by both, as
 * the engine's hit cache (5,000 entries) is shared by the two versions.
 */
function distinctPages(
  counts: number[],
  each: (q: Record<string, string>, perPage: number, page: number) => string,
  half: 0 | 1 = 0,
): string[] {
  const all: Array<[number, number, number]> = [];
  TEXT_SEARCHES.forEach((_, n) => {
    for (let perPage = 5; perPage <= 84; perPage++)
      for (let page = 1; page <= Math.min(50, Math.ceil(counts[n] / perPage)); page++)
        all.push([n, perPage, page]);
  });
  const random = seededRandom(16);
  for (let i = all.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [all[i], all[j]] = [all[j], all[i]];
  }
  return all
    .filter((_, i) => i % 2 === half)
    .map(([n, perPage, page]) => each(TEXT_SEARCHES[n], perPage, page));
}

/** Each text search's result count, as version 2 answers it. */
async function searchCounts(origin: string, key: string): Promise<number[]> {
  const counts: number[] = [];
  for (const q of TEXT_SEARCHES) {
    const res = await fetch(
      `${origin}/apiv2/search/${query({ ...q, fields: 'id', page_size: '1', token: key })}`,
    );
    counts.push(((await res.json()) as { count: number }).count);
  }
  return counts;
}

const COMBINED_SEARCHES: Array<Record<string, string>> = [
  {
    target: 'lowlevel.spectral_centroid.mean:1200',
    filter: 'tag:ambient',
    descriptors_filter: 'lowlevel.pitch.mean:[100 TO 600]',
    fields: 'id,name',
  },
  { target: 'lowlevel.spectral_centroid.mean:300', filter: 'duration:[0 TO 2]', fields: 'id' },
];

function query(params: Record<string, string>): string {
  return `?${Object.entries(params)
    .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
    .join('&')}`;
}

/** The catalogue calls behind the text and combined scenarios, timed alone on a fresh connection pool. */
async function catalogueSplit(): Promise<Row[]> {
  const config = loadConfig({ DATABASE_URL: dbUrl, DATA_DIR: apiBenchDataDir(dbUrl) });
  const catalogue = await openCatalogue({ config, logger, role: 'server', migrate: false });
  try {
    const text = await loadCall(
      '↳ text search: catalogue `searchSounds` alone',
      'split',
      TEXT_SEARCHES.map((q) => () => searchSounds(catalogue, { ...q, limit: 15, offset: 0 })),
    );
    // Uncached: the API shares one read between identical concurrent filters and keeps it until the
    // catalogue changes (5 s without a change feed).
    const readIds = filterSetsFromCatalogue(catalogue.db, 1_000_000);
    const filters = await loadCall(
      '↳ combined: filter id-set SQL alone, uncached',
      'split',
      COMBINED_SEARCHES.map(
        (q) => () => readIds({ filter: q.filter, descriptorsFilter: q.descriptors_filter }),
      ),
    );
    return [text, filters];
  } finally {
    await catalogue.close();
  }
}

// ---------------------------------------------------------------- the realistic rows (issue 18)
interface RealisticWork {
  ids: number[];
  searches: TextSearch[];
  similarIds: number[];
  combined: Record<string, string>[];
  distinctQueries: number;
  /** The distinct searches, each once per page size, in an order no answer or hit cache can help. */
  uncachedSearches: TextSearch[];
}

/** Draws every realistic request up front (seeded), so the API and its floor are asked the same. */
async function realisticWork(): Promise<RealisticWork> {
  const { distinct, stream: searches, random } = await queryLog(dbUrl);
  const shape = streamShape(searches);
  console.log(
    `  ${distinct.length} distinct searches; the stream of ${searches.length} holds ${shape.distinct} of them, the most common is ${(shape.topShare * 100).toFixed(1)}% of it`,
  );
  return {
    ids: uniformIds(sounds, 400_000, random),
    searches,
    similarIds: uniformIds(sounds, 200_000, random),
    combined: combinedSearches(200_000, random),
    distinctQueries: distinct.length,
    uncachedSearches: uncachedStream(distinct),
  };
}

/**
 * The realistic searches without repeats: every distinct search once, then again with the next page
 * size (16, 17, …: never the default the Zipf row asks with), so no answer cache has seen a request,
 * and a search recurs only after all the others (beyond the reach of the engine's 5,000-entry hit cache).
 */
function uncachedStream(distinct: TextSearch[]): TextSearch[] {
  return Array.from({ length: 6 }, (_, n) => distinct.map((q) => ({ ...q, pageSize: 16 + n }))).flat();
}

/** Each realistic row beside its bare floor (same requests, alternating rounds). */
function realisticScenarios(
  work: RealisticWork,
  api: () => string,
  floor: () => string,
  pids: { api?: number; floor?: number },
): Scenario[] {
  const pair = (
    name: string,
    apiPaths: string[],
    floorPaths: string[],
    atLeast: number,
    p99Within?: number,
  ): Scenario[] => [
    {
      name: `realistic floor: ${name}`,
      origin: floor,
      paths: floorPaths,
      target: 'floor',
      distinct: true,
      pid: pids.floor,
    },
    {
      name: `realistic: ${name}`,
      origin: api,
      paths: apiPaths,
      pid: pids.api,
      target: `≥ ${atLeast * 100}% of its floor${p99Within ? `, p99 ≤ ${p99Within} ms` : ''}`,
      distinct: true,
      versus: `realistic floor: ${name}`,
      atLeast,
      p99Within,
    },
  ];
  return [
    ...pair(
      'sound instance, uniform ids',
      work.ids.map((id) => `/apiv2/sounds/${id}/`),
      work.ids.map((id) => `/sound/${id}`),
      0.5,
    ),
    ...withTextSearchTargets(
      pair(
        `text search, Zipf over ${work.distinctQueries} queries`,
        work.searches.map((q) => `/apiv2/search/${query(searchParams(q))}`),
        work.searches.map((q) => `/search${query(searchParams(q))}`),
        0.7,
        250,
      ),
    ),
    {
      // What the answer cache cannot help with: issue 33's targets, read as information.
      name: `realistic: text search, the ${work.distinctQueries} searches without repeats (no cache help)`,
      origin: api,
      paths: work.uncachedSearches.map((q) => `/apiv2/search/${query(searchParams(q))}`),
      pid: pids.api,
      target: 'info (issue 33: p50 ≤ 30 ms, p99 ≤ 250 ms, ≥ 300 req/s)',
      distinct: true,
    },
    ...pair(
      'similar sounds, uniform targets',
      work.similarIds.map((id) => `/apiv2/sounds/${id}/similar/?fields=id,name,username,license,tags`),
      work.similarIds.map((id) => `/similar/${id}`),
      0.5,
    ),
    {
      name: 'realistic: combined search, uniform targets',
      origin: api,
      paths: work.combined.map((q) => `/apiv2/search/combined/${query(q)}`),
      target: 'info',
      distinct: true,
    },
  ];
}

/**
 * Issue 33's targets for the realistic text search, at every size: p50 ≤ 30 ms, p99 ≤ 250 ms,
 * ≥ 300 req/s, and a search page at most 5× the cost of a sound instance read (the sound instance
 * row of the same run: its req/s over the search's).
 */
function withTextSearchTargets([floor, api]: Scenario[]): Scenario[] {
  const absolute = {
    p50Within: 30,
    rpsAtLeast: 300,
    costOf: 'realistic: sound instance, uniform ids',
    times: 5,
  };
  return [
    floor,
    {
      ...api,
      absolute,
      target: `${api.target}, p50 ≤ 30 ms, ≥ 300 req/s, ≤ 5× a sound instance's cost`,
    },
  ];
}

/** PostgreSQL's own throughput for the floors' statements: a pg pool loop in this process. */
async function databaseFloors(work: RealisticWork): Promise<Row[]> {
  const pool = new pg.Pool({ connectionString: dbUrl, max: 10 });
  const config = loadConfig({ DATABASE_URL: dbUrl, DATA_DIR: apiBenchDataDir(dbUrl) });
  const catalogue = await openCatalogue({ config, logger, role: 'server', migrate: false });
  try {
    const sound = await loadCall(
      '↳ realistic sound instance: PostgreSQL alone (the floor statement)',
      'split',
      work.ids.slice(0, 50_000).map((id) => () => pool.query(FLOOR_STATEMENTS.sound, [id])),
    );
    const text = await loadCall(
      '↳ realistic text search: PostgreSQL alone (the catalogue statement)',
      'split',
      work.searches.slice(0, 50_000).map((q) => () => {
        const pageSize = 15;
        return searchSounds(catalogue, {
          query: q.query,
          filter: q.filter,
          sort: q.sort,
          limit: pageSize,
          offset: ((q.page ?? 1) - 1) * pageSize,
        });
      }),
    );
    return [sound, text];
  } finally {
    await catalogue.close();
    await pool.end();
  }
}

async function main(): Promise<void> {
  const loadAtStart = os.loadavg();
  console.log(`[1/4] catalogue: ${sounds} sounds in ${dbName}`);
  const key = await ensureDatabase();
  console.log('[2/4] starting the API server (loads the similarity index)…');
  // `--profile-api DIR`: the API server writes a CPU profile there when it is stopped.
  const profileDir = arg('profile-api', '');
  const api = spawnRole(
    'api-server',
    profileDir ? ['--profile-api', profileDir] : [],
    profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
  );
  const apiOrigin = await api.origin;
  await searchIndexBuilt(apiOrigin);
  const ids = [1, 17, 503, 4242, 31337, 77777].filter((id) => id <= sounds);
  const sample = await fetch(`${apiOrigin}/apiv2/sounds/${ids[0]}/`, {
    headers: { Authorization: `Token ${key}` },
  });
  if (sample.status !== 200) throw new Error(`sound instance answered ${sample.status}`);
  const bodyFile = '/tmp/earshot-api-bench-floor.json';
  fs.writeFileSync(bodyFile, await sample.text());
  const floor = spawnRole('floor', ['--body-file', bodyFile]);
  const floorOrigin = await floor.origin;
  // The search pages version 1 is held against version 2 with, and their bodies for the replay.
  const v2Searches = TEXT_SEARCHES.map((q) => `/apiv2/search/${query({ ...q, token: key })}`);
  const v1Searches = TEXT_SEARCHES.map(
    (q) => `/api/sounds/search/${query({ ...v1Search(q), api_key: key })}`,
  );
  const v2EquivalentSearches = TEXT_SEARCHES.map(
    (q) => `/apiv2/search/${query({ ...v2Equivalent(q), token: key })}`,
  );
  const counts = await searchCounts(apiOrigin, key);
  console.log(
    `  the 4 searches' result counts: ${counts.join(', ')}; ${distinctPages(counts, () => '').length} distinct pages for each cold row`,
  );
  const replayFile = '/tmp/earshot-api-bench-replay.json';
  await writeReplayBodies(apiOrigin, [...v2EquivalentSearches, ...v1Searches], key, replayFile);
  console.log(
    `  search pages: v1 ${meanBytes(await pageSizes(apiOrigin, v1Searches))} B, its v2 equivalent ${meanBytes(await pageSizes(apiOrigin, v2EquivalentSearches))} B, v2 default ${meanBytes(await pageSizes(apiOrigin, v2Searches))} B (mean of the 4)`,
  );
  const replay = spawnRole('replay', ['--bodies-file', replayFile]);
  const replayOrigin = await replay.origin;
  console.log('  drawing the realistic requests and starting the bare-SQL floor (builds its own graph)…');
  const work = await realisticWork();
  const sqlFloor = spawnRole('sql-floor');
  const sqlFloorOrigin = await sqlFloor.origin;
  let floorRps = 0;
  const scenarios: Scenario[] = [
    {
      name: 'floor: node:http, precomputed sound JSON',
      origin: () => floorOrigin,
      paths: ['/'],
      target: '—',
    },
    {
      name: 'sound instance',
      origin: () => apiOrigin,
      paths: ids.map((id) => `/apiv2/sounds/${id}/`),
      target: '≥ 50% of floor req/s',
    },
    {
      // Version 2 keyed in the query string (`token`), as version 1's clients key theirs: the
      // version 2 equivalent of the version 1 rows below (the key is parsed from the query).
      name: 'sound instance, key in the query',
      origin: () => apiOrigin,
      paths: ids.map((id) => `/apiv2/sounds/${id}/?token=${key}`),
      target: 'info',
      pid: api.child.pid,
    },
    {
      // Version 1's sound resource, keyed as old clients send it (`api_key` in the query).
      name: 'v1 sound instance',
      origin: () => apiOrigin,
      paths: ids.map((id) => `/api/sounds/${id}/?api_key=${key}`),
      target: '≥ 90% of the v2 sound instance, key in the query',
      versus: 'sound instance, key in the query',
      pid: api.child.pid,
    },
    {
      // The same route without the caches' help: a different sound on (almost) every request.
      name: 'sound instance, 20k distinct ids (cold caches)',
      origin: () => apiOrigin,
      paths: Array.from({ length: 20_000 }, (_, i) => `/apiv2/sounds/${1 + ((i * 7919) % sounds)}/`),
      target: 'info',
      distinct: true,
    },
    {
      name: 'text search (4 queries)',
      origin: () => apiOrigin,
      paths: TEXT_SEARCHES.map((q) => `/apiv2/search/${query(q)}`),
      target: 'p99 ≤ 100 ms',
    },
    {
      // Version 2's default search (15 a page, 5 short fields): information beside the v1 rows.
      name: 'text search (4 queries), key in the query',
      origin: () => apiOrigin,
      paths: v2Searches,
      target: 'info',
      pid: api.child.pid,
    },
    {
      // The v2 request that selects the same sounds with the same information as the v1 search:
      // 30 a page and `fields` naming what the v1 record carries (V2_FIELDS_OF_V1_RECORD).
      name: 'v2 equivalent of the v1 search (30 a page, the v1 record as v2 fields)',
      origin: () => apiOrigin,
      paths: v2EquivalentSearches,
      target: 'info',
      pid: api.child.pid,
    },
    {
      // The four searches in version 1's language, as a v1 client sends them (30 a page).
      name: 'v1 sound search (the 4 text queries)',
      origin: () => apiOrigin,
      paths: v1Searches,
      target: '≥ 90% of its v2 equivalent',
      versus: 'v2 equivalent of the v1 search (30 a page, the v1 record as v2 fields)',
      pid: api.child.pid,
    },
    {
      // The same v1 row against the default v2 search (different pages: 30 full records against
      // 15 short ones); information, the ratio the issue's first reading compared.
      name: 'v1 sound search, against the v2 default search',
      origin: () => apiOrigin,
      paths: v1Searches,
      target: 'info: against pages of other sizes',
      versus: 'text search (4 queries), key in the query',
      pid: api.child.pid,
    },
    {
      // What the bytes alone cost: the same v2-equivalent and v1 pages from a bare node:http
      // server. The v1 pages' share here is the most any server could reach with them.
      name: 'v2 equivalent pages replayed (node:http, no work; bytes alone)',
      origin: () => replayOrigin,
      paths: v2EquivalentSearches,
      target: 'info',
      pid: replay.child.pid,
    },
    {
      name: 'v1 search pages replayed (node:http, no work; bytes alone)',
      origin: () => replayOrigin,
      paths: v1Searches,
      target: "info: the v1 pages' share of the v2-equivalent pages' req/s with no work behind them",
      versus: 'v2 equivalent pages replayed (node:http, no work; bytes alone)',
      pid: replay.child.pid,
    },
    {
      // Without the page cache: every request a different page (search × page × page size), so
      // each answer runs the search, the catalogue read and the serializer (v1's or v2's).
      name: 'v2 equivalent of the v1 search, distinct pages (cold caches)',
      origin: () => apiOrigin,
      paths: distinctPages(
        counts,
        (q, perPage, page) => `/apiv2/search/${query({ ...v2Equivalent(q, perPage, page), token: key })}`,
      ),
      target: 'info',
      distinct: true,
      pid: api.child.pid,
    },
    {
      name: 'v1 sound search, distinct pages (cold caches)',
      origin: () => apiOrigin,
      paths: distinctPages(
        counts,
        (q, perPage, page) =>
          `/api/sounds/search/${query({ ...v1Search(q, { p: String(page), sounds_per_page: String(perPage) }), api_key: key })}`,
        1,
      ),
      target: '≥ 90% of its v2 equivalent, cold',
      versus: 'v2 equivalent of the v1 search, distinct pages (cold caches)',
      distinct: true,
      pid: api.child.pid,
    },
    {
      // Every request a different search (query × page × page size): no result cache can help, so
      // this is the catalogue's `searchSounds` through the API.
      name: 'text search, 4,000 distinct requests (cold caches)',
      origin: () => apiOrigin,
      paths: Array.from({ length: 4_000 }, (_, i) => {
        const q = TEXT_SEARCHES[i % TEXT_SEARCHES.length];
        const n = Math.floor(i / TEXT_SEARCHES.length);
        return `/apiv2/search/${query({ ...q, page: String(1 + (n % 50)), page_size: String(5 + Math.floor(n / 50)) })}`;
      }),
      target: 'info',
      distinct: true,
    },
    {
      name: 'similar sounds',
      origin: () => apiOrigin,
      paths: ids.map((id) => `/apiv2/sounds/${id}/similar/?fields=id,name,score`),
      target: 'p99 ≤ 100 ms',
    },
    {
      // Without the neighbour cache's help: a different target on (almost) every request.
      name: 'similar sounds, 20k distinct targets (cold caches)',
      origin: () => apiOrigin,
      paths: Array.from(
        { length: 20_000 },
        (_, i) => `/apiv2/sounds/${1 + ((i * 7919 + 13) % sounds)}/similar/?fields=id,name,score`,
      ),
      target: 'info',
      distinct: true,
    },
    {
      name: 'combined search (target + filters)',
      origin: () => apiOrigin,
      paths: COMBINED_SEARCHES.map((q) => `/apiv2/search/combined/${query(q)}`),
      target: 'p99 ≤ 100 ms',
    },
    {
      // Every request a different target over the same two filters: the result cache misses, the
      // filter id sets (kept until the catalogue changes, prepared as table rows) are reused.
      name: 'combined search, 20k distinct targets (cold result cache)',
      origin: () => apiOrigin,
      paths: Array.from({ length: 20_000 }, (_, i) => {
        const q = COMBINED_SEARCHES[i % COMBINED_SEARCHES.length];
        const [name] = q.target.split(':');
        return `/apiv2/search/combined/${query({ ...q, target: `${name}:${100 + i * 0.37}` })}`;
      }),
      target: 'info',
      distinct: true,
    },
    ...realisticScenarios(
      work,
      () => apiOrigin,
      () => sqlFloorOrigin,
      { api: api.child.pid, floor: sqlFloor.child.pid },
    ),
  ];
  const rows: Row[] = [];
  // Target rows first, then the cold (info) rows: the caches those fill with one-off answers would
  // otherwise charge their garbage collection to the next target row.
  scenarios.sort((a, b) => Number(a.target === 'info') - Number(b.target === 'info'));
  const chosen = scenarios.filter(
    (sc, i) => i === 0 || only.length === 0 || only.some((w) => sc.name.includes(w)),
  );
  try {
    console.log(`[3/4] load: ${connections} connections, ${duration} s per scenario`);
    for (const [i, scenario] of chosen.entries()) {
      process.stdout.write(`  (${i + 1}/${chosen.length}) ${scenario.name}… `);
      // The row it is held against runs with it even when `--only` did not choose that row.
      const against = scenario.versus && scenarios.find((sc) => sc.name === scenario.versus);
      const row = against ? await alternate(scenario, against, key) : await load(scenario, key);
      if (i === 0) floorRps = row.rps;
      rows.push(row);
      console.log(
        `${row.rps.toFixed(0)} req/s, p99 ${row.p99} ms, errors ${row.errors}, non-2xx ${row.non2xx}${row.ratios ? `, ratios ${row.ratios.map((r) => r.toFixed(2)).join(' ')}` : ''}${row.cpuUs ? `, server CPU ${row.cpuUs.toFixed(0)} µs/request` : ''}${row.cpuRatios ? ` (CPU ratios ${row.cpuRatios.map((r) => r.toFixed(2)).join(' ')})` : ''}`,
      );
    }
  } finally {
    api.child.kill('SIGTERM');
    floor.child.kill('SIGTERM');
    replay.child.kill('SIGTERM');
    sqlFloor.child.kill('SIGTERM');
  }
  if (split) console.log('  the catalogue calls alone (API server stopped)…');
  const splitRows = realisticOnly
    ? () => databaseFloors(work)
    : async () => [...(await catalogueSplit()), ...(await databaseFloors(work))];
  for (const row of split ? await splitRows() : []) {
    rows.push(row);
    console.log(
      `  ${row.name}: ${row.rps.toFixed(0)} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms, errors ${row.errors}`,
    );
  }
  console.log('[4/4] results');
  const verdict = (row: Row) => {
    if (row.total === 0) return row.target === '—' ? '' : 'missed (no answers)';
    if (row.ratios) {
      const scenario = scenarios.find((sc) => sc.name === row.name);
      const ratio = median(row.ratios);
      // Beside the req/s (which other work on the machine swings), the server's CPU per request:
      // the other row's over this one's is this row's share of the other's requests per CPU second.
      const cpu = row.cpuRatios
        ? `; by the server's CPU per request, ${(median(row.cpuRatios) * 100).toFixed(0)}% of its requests per CPU second`
        : '';
      const each = row.ratios.map((r) => (r * 100).toFixed(0)).join(', ');
      const absolute = scenario?.absolute;
      const costRow = absolute && rows.find((r) => r.name === absolute.costOf);
      const cost = costRow && row.rps > 0 ? costRow.rps / row.rps : Number.POSITIVE_INFINITY;
      const absoluteText = absolute
        ? `, p50 ${row.p50} ms, ${row.rps.toFixed(0)} req/s, ${cost.toFixed(1)}× a sound instance's cost`
        : '';
      const text = `median ${(ratio * 100).toFixed(0)}% of it over ${row.ratios.length} alternating rounds (${each}%)${scenario?.p99Within ? `, p99 ${row.p99} ms (rounds ${row.p99s?.join(', ')} ms)` : ''}${absoluteText}${cpu}`;
      // A reference held against another (the replayed pages) has no target of its own.
      if (row.target.startsWith('info')) return text;
      const ok =
        ratio >= (scenario?.atLeast ?? 0.9) &&
        row.errors + row.non2xx === 0 &&
        (scenario?.p99Within === undefined || row.p99 <= scenario.p99Within) &&
        (!absolute ||
          (row.p50 <= absolute.p50Within && row.rps >= absolute.rpsAtLeast && cost <= absolute.times));
      return ok ? `met (${text})` : `missed (${text})`;
    }
    if (scenarios.find((sc) => sc.name === row.name)?.versus) return 'not compared (its row did not run)';
    if (row.target.startsWith('≥'))
      return row.rps >= floorRps * 0.5 && row.errors + row.non2xx === 0 ? 'met' : 'missed';
    if (row.target.startsWith('p99'))
      return row.p99 <= 100 && row.errors + row.non2xx === 0 ? 'met' : 'missed';
    return '';
  };
  const table = [
    '| scenario | req/s | % of floor | p50 ms | p99 ms | errors | non-2xx | target | verdict |',
    '|---|---:|---:|---:|---:|---:|---:|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${r.rps.toFixed(0)} | ${((r.rps / floorRps) * 100).toFixed(0)}% | ${r.p50} | ${r.p99} | ${r.errors} | ${r.non2xx} | ${r.target} | ${verdict(r)} |`,
    ),
  ].join('\n');
  console.log(table);
  const header = `# API load benchmark\n\n\`npx earshot bench api --sounds ${sounds} --duration ${duration} --connections ${connections} --rounds ${rounds}\`\n\nRun ${new Date().toISOString()}, ${sounds} sounds in the PostgreSQL server, ${connections} concurrent connections, autocannon in a separate process from both servers. ${os.cpus().length} cores, load average ${loadAtStart
    .map((l) => l.toFixed(1))
    .join(' / ')} at the start and ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ')} at the end of the run (other work shares the machine).\n\n`;
  if (realisticOnly && split) {
    writeRealisticSection(
      `${header.replace('# API load benchmark\n\n', '').replace(`--rounds ${rounds}\``, `--rounds ${rounds} --only realistic\``)}${table}\n`,
    );
    return;
  }
  if (process.argv.includes('--v1-section')) {
    const command = `--rounds ${rounds} --only '${only.join(',')}'${split ? '' : ' --no-split'} --v1-section\``;
    writeSection(
      v1Heading(sounds),
      `${header.replace('# API load benchmark\n\n', '').replace(`--rounds ${rounds}\``, command)}${table}\n`,
    );
    return;
  }
  if (only.length > 0 || !split) {
    console.log('partial run (--only / --no-split): results file not written');
    return;
  }
  fs.mkdirSync(path.dirname(resultsFile), { recursive: true });
  fs.writeFileSync(resultsFile, `${header}${table}\n${sections(readResults()).join('')}`);
  console.log(`written ${path.relative(process.cwd(), resultsFile)}`);
}

// The realistic rows alone (`--only realistic`) are recorded in a section per catalogue size below
// the full table; a full run rewrites only the table above the sections (notes are sections too).
const realisticHeading = (n: number) => `\n## Realistic rows, ${n} sounds\n\n`;

function readResults(): string {
  return fs.existsSync(resultsFile) ? fs.readFileSync(resultsFile, 'utf8') : '# API load benchmark\n';
}

/** The sections below the full table (each starts with a newline and `## `). */
function sections(text: string): string[] {
  return text.split(/(?=\n## )/).slice(1);
}

// `--v1-section` (with `--only v1,…`): the version 1 rows against their version 2 equivalents, a
// section per catalogue size and day (a later run of the same day replaces it).
const v1Heading = (n: number) =>
  `\n## Version 1 against its version 2 equivalent, ${n} sounds, ${new Date().toISOString().slice(0, 10)}\n\n`;

function writeRealisticSection(body: string): void {
  writeSection(realisticHeading(sounds), body);
}

function writeSection(heading: string, body: string): void {
  const text = readResults();
  const [top] = text.split(/(?=\n## )/);
  const mine = `${heading}${body}`;
  const rest = sections(text);
  const at = rest.findIndex((part) => part.startsWith(heading));
  if (at >= 0) rest[at] = mine;
  else rest.push(mine);
  fs.writeFileSync(resultsFile, `${top.trimEnd()}\n${rest.join('')}`);
  console.log(`written the section "${heading.trim()}" of ${path.relative(process.cwd(), resultsFile)}`);
}

if (role === 'api-server') {
  // A profiled server exits on SIGTERM (rather than being killed by it) so node writes the profile.
  if (arg('profile-api', '')) process.once('SIGTERM', () => process.exit(0));
  await runApiBenchServer(dbUrl, apiBenchDataDir(dbUrl));
} else if (role === 'floor') await runFloor();
else if (role === 'replay') await runReplay();
else if (role === 'sql-floor')
  await runSqlFloor(dbUrl, { similar: true, poolSize: 10, dataDir: apiBenchDataDir(dbUrl) });
else await main();
