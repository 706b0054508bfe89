// Rate-limit cost on the sound instance (issue 14): a cached sound instance with an unlimited key
// (not counted) against standard keys (counted in the minute and day windows) under the in-memory
// limiter and under the Redis limiter, in one run. Two API servers in child processes (one without
// REDIS_URL, one with it), autocannon in this process.
//   npx earshot bench ratelimit [--duration 8] [--connections 50] [--keys 8000] [--no-write]
// Standard keys are the real policy's (60/minute): each request takes the next of `--keys` fresh
// keys so none is refused; a row with any non-2xx answer is flagged.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { buildAppDeps, startServer } from '@earshot/api';
import { loadSyntheticCatalogue, openCatalogue } from '@earshot/catalogue';
import { createLogger, DEFAULT_TEST_DATABASE_URL, DEFAULT_TEST_REDIS_URL, loadConfig } from '@earshot/common';
import { createApiCredential } from '@earshot/services';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import pg from 'pg';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}
const duration = Number(arg('duration', '8'));
const connections = Number(arg('connections', '50'));
const keyCount = Number(arg('keys', '8000'));
const role = arg('role', 'main');
const baseUrl = process.env.DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL;
const redisUrl = process.env.REDIS_URL ?? DEFAULT_TEST_REDIS_URL;
const dbName = 'earshot_ratelimit_bench';
const dbUrl = (() => {
  const u = new URL(baseUrl);
  u.pathname = `/${dbName}`;
  return u.toString();
})();
const here = path.dirname(fileURLToPath(import.meta.url));
const resultsFile = path.join(here, '..', 'results', 'ratelimit.md');
const logger = createLogger('warn');
const SOUNDS = 1_000;

async function runServer(): Promise<void> {
  const config = loadConfig({
    PORT: '0',
    DATABASE_URL: dbUrl,
    REDIS_URL: arg('limiter', 'memory') === 'redis' ? redisUrl : '',
    LOG_LEVEL: 'warn',
    DATA_DIR: '/tmp/earshot-ratelimit-bench',
  });
  const catalogue = await openCatalogue({ config, logger, role: 'server', migrate: false });
  const deps = await buildAppDeps({ config, logger, catalogue, version: 'bench', similarityRefreshMs: 0 });
  const server = await startServer(deps);
  process.stdout.write(`${JSON.stringify({ origin: server.origin })}\n`);
}

/** The catalogue (a small synthetic one: the instance comes from the cache) and this run's keys. */
async function prepare(): Promise<{ unlimited: string; standard: string[]; soundId: number }> {
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  const exists = (await admin.query('select 1 from pg_database where datname = $1', [dbName])).rowCount === 1;
  if (!exists) await admin.query(`create database ${dbName}`);
  await admin.end();
  const config = loadConfig({ DATABASE_URL: dbUrl, DATA_DIR: '/tmp/earshot-ratelimit-bench' });
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
    const key = async (level: string) =>
      (await createApiCredential(db, { username: 'bench', name: 'bench', redirectUri: 'http://x/', level }))
        .client_secret;
    const unlimited = await key('unlimited');
    const standard: string[] = [];
    for (let i = 0; i < keyCount; i++) standard.push(await key('standard'));
    return { unlimited, standard, soundId: sound.rows[0].id };
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
  name: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

async function load(name: string, origin: string, soundPath: string, keys: string[]): Promise<Row> {
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
          headers: { ...req.headers, Authorization: `Token ${keys[next++ % keys.length]}` },
        }),
      },
    ],
  };
  await autocannon({ ...options, duration: 2 }); // warm: JIT, the rendered instance, credential cache
  const result = await autocannon({ ...options, duration });
  return {
    name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
  };
}

async function main(): Promise<void> {
  process.stdout.write(`preparing the catalogue and ${keyCount} standard keys…\n`);
  const { unlimited, standard, soundId } = await prepare();
  const soundPath = `/apiv2/sounds/${soundId}/`;
  const servers = { memory: spawnServer('memory'), redis: spawnServer('redis') };
  try {
    const origins = { memory: await servers.memory.origin, redis: await servers.redis.origin };
    // Each standard key's first request fills the credential cache, one per key on each server, so
    // the rows compare counting, not credential lookups. That is one of its 60 a minute.
    for (const origin of Object.values(origins)) {
      for (let i = 0; i < standard.length; i += 50) {
        await Promise.all(
          standard
            .slice(i, i + 50)
            .map((k) =>
              fetch(`${origin}${soundPath}`, { headers: { Authorization: `Token ${k}` } }).then((r) =>
                r.arrayBuffer(),
              ),
            ),
        );
      }
    }
    const rows: Row[] = [];
    for (const [label, origin] of Object.entries(origins)) {
      for (const [kind, keys] of [
        ['unlimited key (not counted)', [unlimited]],
        ['standard keys (counted)', standard],
      ] as const) {
        const row = await load(`${label} limiter, ${kind}`, origin, soundPath, [...keys]);
        process.stdout.write(
          `${row.name}: ${Math.round(row.rps)} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms\n`,
        );
        rows.push(row);
      }
    }
    const [memFree, memCounted, redisFree, redisCounted] = rows;
    const summary = [
      `- in-memory limiter: standard keys at ${pct(memCounted.rps / memFree.rps)} of the unlimited key's req/s, p99 +${memCounted.p99 - memFree.p99} ms`,
      `- Redis limiter: standard keys at ${pct(redisCounted.rps / redisFree.rps)} of the unlimited key's req/s, p99 +${redisCounted.p99 - redisFree.p99} ms (target ≤ 1 ms)`,
      `- p99 added by Redis over memory for counted requests: ${redisCounted.p99 - memCounted.p99} ms`,
    ];
    process.stdout.write(`${summary.join('\n')}\n`);
    if (rows.some((r) => r.non2xx > 0)) process.stdout.write('WARNING: some answers were not 2xx\n');
    if (!process.argv.includes('--no-write')) {
      const table = [
        '| scenario | req/s | p50 ms | p99 ms | non-2xx |',
        '|---|---:|---:|---:|---:|',
        ...rows.map((r) => `| ${r.name} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.non2xx} |`),
      ];
      const header = `# Rate-limit benchmark\n\n\`npx earshot bench ratelimit --duration ${duration} --connections ${connections} --keys ${keyCount}\`\n\nRun ${new Date().toISOString()}: a cached sound instance (hot path), ${connections} connections, autocannon in this process, the servers in child processes; ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(2)}.\n\n`;
      fs.writeFileSync(resultsFile, `${header}${table.join('\n')}\n\n${summary.join('\n')}\n`);
    }
  } finally {
    servers.memory.child.kill();
    servers.redis.child.kill();
  }
}

function pct(x: number): string {
  return `${Math.round(x * 100)}%`;
}

if (role === 'server') await runServer();
else await main();
