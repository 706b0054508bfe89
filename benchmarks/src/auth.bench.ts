// Authentication and throttling cost on the sound instance (issue 14's targets), in one run: a
// cached sound instance answered by the hot path, with
//   (a) an API key at `unlimited` (not counted: the cost before rate limits),
//   (a2) as many `unlimited` keys as the counted rows rotate over (the same requests before rate
//        limits: the floor the targets compare with),
//   (b) API keys at `standard`, in-memory limiter,   (c) the same, Redis limiter,
//   (d) Bearer tokens at `standard`, in-memory limiter, (e) the same, Redis limiter.
// Two API servers in child processes (one without REDIS_URL, one with it), autocannon here.
//   npx earshot bench auth [--duration 2] [--rounds 3] [--connections 50] [--keys N] [--no-write]
// The rows run in turn, `--rounds` times (the machine's load drifts: each row's figure is the
// median of its rounds, and every round has every row). Standard credentials get the real policy
// (60/minute): each counted row rotates over its own `--keys` API keys or Bearer tokens
// (OAuth2Service: startAuthorization + grant + token), so none is refused; a row with any non-2xx
// answer is flagged. The default key count follows from the requests a row can make (see
// `keyCount`), so that no row is throttled.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { buildAppDeps, startServer } from '@earshot/api';
import { findUserByName, openCatalogue } from '@earshot/catalogue';
import { loadSyntheticCatalogue } from '@earshot/catalogue/testing';
import { createLogger, DEFAULT_TEST_DATABASE_URL, DEFAULT_TEST_REDIS_URL, loadConfig } from '@earshot/common';
import { createApiCredential, OAuth2Service } from '@earshot/services';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import pg from 'pg';
import { accessToken } from './access-token.ts';
import { arg } from './args.ts';

const duration = Number(arg('duration', '2'));
const rounds = Number(arg('rounds', '3'));
const connections = Number(arg('connections', '50'));
/** The fastest a row is expected to go (the baseline ran at ~38k req/s on a quiet machine). */
const MAX_RPS = 60_000;
/** Requests per key and row, under the 60/minute limit (each row also warms every key once). */
const PER_KEY = 58;
/** The credential and Bearer caches hold 10,000 entries: more keys would measure their misses. */
const MAX_KEYS = 9_500;
// A row is a 1 s warm-up then `duration` seconds, each round within a minute of the last: at most
// rounds × MAX_RPS × (duration + 1) requests per key set in a minute, rotated evenly over its keys
// (3 rounds of 2 s: 9,311 keys).
const keyCount = Number(
  arg(
    'keys',
    String(Math.min(MAX_KEYS, Math.max(1_000, Math.ceil((rounds * MAX_RPS * (duration + 1)) / PER_KEY)))),
  ),
);
const role = arg('role', 'main');
const baseUrl = process.env.DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL;
const redisUrl = process.env.REDIS_URL ?? DEFAULT_TEST_REDIS_URL;
const dbName = 'earshot_auth_bench';
const dbUrl = (() => {
  const u = new URL(baseUrl);
  u.pathname = `/${dbName}`;
  return u.toString();
})();
const dataDir = '/tmp/earshot-auth-bench';
const here = path.dirname(fileURLToPath(import.meta.url));
const resultsFile = path.join(here, '..', 'results', 'auth.md');
const logger = createLogger('warn');
const SOUNDS = 200;
const REDIRECT = 'http://127.0.0.1/cb';

async function runServer(): Promise<void> {
  const config = loadConfig({
    PORT: '0',
    DATABASE_URL: dbUrl,
    REDIS_URL: arg('limiter', 'memory') === 'redis' ? redisUrl : '',
    LOG_LEVEL: 'warn',
    DATA_DIR: dataDir,
    // The load generator speaks plain http; the https rule is not what is measured.
    OAUTH2_HTTPS_ONLY: 'false',
  });
  const catalogue = await openCatalogue({ config, logger, role: 'server', migrate: false });
  const deps = await buildAppDeps({ config, logger, catalogue, version: 'bench', similarityRefreshMs: 0 });
  const server = await startServer(deps);
  process.stdout.write(`${JSON.stringify({ origin: server.origin })}\n`);
}

/** The catalogue (small: the instance comes from the cache), this run's API keys and Bearer tokens. */
async function prepare(): Promise<{
  unlimited: string[];
  keys: [string[], string[]];
  tokens: [string[], string[]];
  soundId: number;
}> {
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  const exists = (await admin.query('select 1 from pg_database where datname = $1', [dbName])).rowCount === 1;
  if (!exists) await admin.query(`create database ${dbName}`);
  await admin.end();
  const config = loadConfig({ DATABASE_URL: dbUrl, DATA_DIR: dataDir });
  const catalogue = await openCatalogue({ config, logger, role: 'command' });
  const db = catalogue.db;
  try {
    const count = async () =>
      (await sql<{ n: number }>`select count(*)::int as n from sounds`.execute(db)).rows[0].n;
    if ((await count()) < SOUNDS) {
      await loadSyntheticCatalogue(db, { sounds: SOUNDS });
      for (const table of ['users', 'api_credentials']) {
        await sql`select setval(pg_get_serial_sequence(${table}, 'id'), greatest(1, (select coalesce(max(id), 0) from ${sql.table(table)})))`.execute(
          db,
        );
      }
    }
    const sound = await sql<{ id: number }>`select min(id)::int as id from sounds`.execute(db);
    const credential = (username: string, level: string) =>
      createApiCredential(db, { username, name: 'bench', redirectUri: REDIRECT, level });
    const unlimited: string[] = [];
    const keys: [string[], string[]] = [[], []];
    const tokens: [string[], string[]] = [[], []];
    const oauth = new OAuth2Service({ db });
    // Applications of several developers, each authorized by one of several users (created one by
    // one first: creating a user is not safe to race).
    const users: number[] = [];
    for (let u = 0; u < 20; u++) {
      await credential(`bench-dev-${u}`, 'standard');
      await credential(`bench-user-${u % 10}`, 'standard');
      if (u < 10) users.push((await findUserByName(db, `bench-user-${u}`))?.id as number);
    }
    for (let i = 0; i < keyCount; i += 50) {
      const n = Math.min(50, keyCount - i);
      await Promise.all(
        Array.from({ length: n }, async (_, j) => {
          const developer = `bench-dev-${(i + j) % 20}`;
          unlimited.push((await credential(developer, 'unlimited')).client_secret);
          for (const set of [0, 1]) {
            keys[set].push((await credential(developer, 'standard')).client_secret);
            const app = await credential(developer, 'standard');
            tokens[set].push(await accessToken(oauth, app, users[(i + j) % users.length]));
          }
        }),
      );
    }
    return { unlimited, keys, tokens, soundId: sound.rows[0].id };
  } finally {
    await catalogue.close();
  }
}

function spawnServer(limiter: 'memory' | 'redis') {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), '--role', 'server', '--limiter', limiter],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const origin = new Promise<string>((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout });
    lines.once('line', (line) => resolve((JSON.parse(line) as { origin: string }).origin));
    child.once('exit', (code) => reject(new Error(`server (${limiter}) exited with ${code}`)));
  });
  return { child, origin };
}

interface Row {
  id: string;
  name: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

async function load(
  id: string,
  name: string,
  origin: string,
  soundPath: string,
  auth: string[],
): Promise<Row> {
  let next = 0;
  const options = {
    url: origin,
    connections,
    requests: [
      {
        method: 'GET' as const,
        path: soundPath,
        setupRequest: (req: autocannon.Request) => ({
          ...req,
          headers: { ...req.headers, Authorization: auth[next++ % auth.length] },
        }),
      },
    ],
  };
  // Warm: JIT and connections.
  await autocannon({ ...options, duration: 1 });
  const result = await autocannon({ ...options, duration });
  return {
    id,
    name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
  };
}

async function main(): Promise<void> {
  process.stdout.write(
    `preparing the catalogue, ${keyCount} keys per row: unlimited, two sets of API keys and two of Bearer tokens…\n`,
  );
  const prepared = Date.now();
  const { unlimited, keys, tokens, soundId } = await prepare();
  process.stdout.write(`prepared in ${Math.round((Date.now() - prepared) / 1000)} s\n`);
  const soundPath = `/apiv2/sounds/${soundId}/`;
  const apiKeys = keys.map((set) => set.map((k) => `Token ${k}`));
  const bearers = tokens.map((set) => set.map((t) => `Bearer ${t}`));
  const servers = { memory: spawnServer('memory'), redis: spawnServer('redis') };
  try {
    const origins = { memory: await servers.memory.origin, redis: await servers.redis.origin };
    // The first request renders the instance (on each server).
    for (const origin of Object.values(origins)) await warm(origin, soundPath, [`Token ${unlimited[0]}`]);
    const plan: [string, string, string, string[]][] = [
      ['a', 'API key, unlimited (not counted; one key)', origins.memory, [`Token ${unlimited[0]}`]],
      [
        'a2',
        `${keyCount} API keys, unlimited (not counted)`,
        origins.memory,
        unlimited.map((k) => `Token ${k}`),
      ],
      ['b', 'API key, standard, in-memory limiter', origins.memory, apiKeys[0]],
      ['c', 'API key, standard, Redis limiter', origins.redis, apiKeys[1]],
      ['d', 'Bearer, standard, in-memory limiter', origins.memory, bearers[0]],
      ['e', 'Bearer, standard, Redis limiter', origins.redis, bearers[1]],
    ];
    const runs = new Map<string, Row[]>(plan.map(([id]) => [id, []]));
    for (let round = 1; round <= rounds; round++) {
      for (const [id, name, origin, auth] of plan) {
        // Each credential's first request fills its cache entry (one of its 60 a minute); the
        // caches keep an entry 30 s from then, so this runs right before the row that uses them.
        await warm(origin, soundPath, auth);
        const row = await load(id, name, origin, soundPath, auth);
        process.stdout.write(
          `round ${round}/${rounds} (${id}) ${name}: ${Math.round(row.rps)} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms\n`,
        );
        runs.get(id)?.push(row);
      }
    }
    const rows = plan.map(([id, name]) => medianRow(id, name, runs.get(id) as Row[]));
    const [a, a2, b, c, d, e] = rows;
    const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
    const table = [
      '| row | scenario | req/s (median) | rounds | vs (a2) | vs (a) | p50 ms | p99 ms | non-2xx | target | verdict |',
      '|---|---|---:|---|---:|---:|---:|---:|---:|---|---|',
      ...rows.map((r) => {
        const ratio = r.rps / a2.rps;
        const target = r === a || r === a2 ? '' : '≥ 90% of (a2)';
        const v = target ? verdict(ratio >= 0.9) : '';
        const each = (runs.get(r.id) as Row[]).map((x) => Math.round(x.rps)).join(', ');
        return `| (${r.id}) | ${r.name} | ${Math.round(r.rps)} | ${each} | ${pct(ratio)} | ${pct(r.rps / a.rps)} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${target} | ${v} |`;
      }),
    ];
    const redisCost = [
      ['API key', c.p99 - b.p99],
      ['Bearer', e.p99 - d.p99],
    ] as const;
    const summary = [
      ...redisCost.map(
        ([who, ms]) =>
          `- p99 added by the Redis limiter over memory, ${who}: ${ms} ms (target ≤ 1 ms: ${verdict(ms <= 1)})`,
      ),
      `- Bearer vs API key, same limiter: memory ${pct(d.rps / b.rps)}, Redis ${pct(e.rps / c.rps)} of the API key's req/s`,
      `- Redis vs memory limiter: API key ${pct(c.rps / b.rps)}, Bearer ${pct(e.rps / d.rps)} of the in-memory limiter's req/s`,
    ];
    process.stdout.write(`\n${table.join('\n')}\n\n${summary.join('\n')}\n`);
    if (rows.some((r) => r.non2xx > 0)) process.stdout.write('WARNING: some answers were not 2xx\n');
    if (!process.argv.includes('--no-write')) {
      const header = `# Authentication and throttling benchmark\n\n\`npx earshot bench auth --duration ${duration} --rounds ${rounds} --connections ${connections} --keys ${keyCount}\`\n\nRun ${new Date().toISOString()}: a cached sound instance (hot path, warm credential and Bearer caches), ${connections} connections, autocannon in this process, the two servers in child processes, ${rounds} rounds of every row, ${duration} s per row after 1 s of warm-up, each row's median shown; ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(2)} at the end. Absolute figures depend on what else the machine runs; the ratios within the run are what counts. The targets compare with (a2), the same requests (as many keys) before rate limits; (a), one key, is shown for reference.\n\n`;
      fs.writeFileSync(resultsFile, `${header}${table.join('\n')}\n\n${summary.join('\n')}\n`);
    }
  } finally {
    servers.memory.child.kill();
    servers.redis.child.kill();
  }
}

async function warm(origin: string, soundPath: string, auth: string[]): Promise<void> {
  for (let i = 0; i < auth.length; i += 50) {
    await Promise.all(
      auth.slice(i, i + 50).map(async (a) => {
        const res = await fetch(`${origin}${soundPath}`, { headers: { Authorization: a } });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`warm-up: ${res.status}`);
      }),
    );
  }
}

/** A row's median over its rounds (req/s and latencies each their own median; non-2xx summed). */
function medianRow(id: string, name: string, runs: Row[]): Row {
  const median = (xs: number[]) => {
    const sorted = [...xs].sort((p, q) => p - q);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  };
  return {
    id,
    name,
    rps: median(runs.map((r) => r.rps)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
  };
}

function pct(x: number): string {
  return `${Math.round(x * 100)}%`;
}

if (role === 'server') await runServer();
else await main();
