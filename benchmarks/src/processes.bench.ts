// `earshot serve --processes 2` against one process (issue 18, "Both cores for the API"): both
// serve the API bench catalogue (api-bench-catalogue.ts) from the PostgreSQL server with Redis, and
// this process loads the warm sound-instance row of each in alternating rounds, so load from other
// work falls on both alike. The load generator shares the two cores with the servers: by default
// it is wrk (wrk-load.ts, Debian's native `wrk`: about half the lean generator's CPU per request,
// which is about two thirds of autocannon's); `--load wrk,lean,autocannon` runs several, round by
// round. Each run also reads the CPU time the serving processes, their database sessions and the
// load generator spent per answer, and how busy the whole machine was; from those costs it prints
// the ratio two idle cores would allow at most.
// The table (medians of the rounds, each round's ratio against the target 1.6×) is printed and
// written as a section of benchmarks/results/api.md.
//
//   npx earshot bench processes [--sounds 10000] [--duration 8] [--connections 50] [--rounds 5]
//     [--load wrk|lean|autocannon|wrk,lean,…] [--wrk-threads 1]

import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_TEST_REDIS_URL } from '@earshot/common';
import autocannon from 'autocannon';
import pg from 'pg';
import { apiBenchDatabase, apiBenchDataDir, ensureApiBenchCatalogue } from './api-bench-catalogue.ts';
import { arg } from './args.ts';
import { leanLoad } from './lean-load.ts';
import { connectionsOn, cpuMicros, EARSHOT_BIN, localPorts, processStats, processTree } from './processes.ts';
import { findWrk, WRK_MISSING, wrkLoad } from './wrk-load.ts';

const sounds = Number(arg('sounds', '10000'));
const duration = Number(arg('duration', '8'));
const connections = Number(arg('connections', '50'));
const rounds = Number(arg('rounds', '5'));
const generators = arg('load', 'wrk')
  .split(',')
  .map((g) => g.trim())
  .filter((g): g is LoadGenerator => g === 'wrk' || g === 'lean' || g === 'autocannon');
const wrkThreads = Number(arg('wrk-threads', '1'));
const TARGET = 1.6;
const RESULTS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'results', 'api.md');
const HEADING = '\n## `serve --processes 2` against one process, warm sound instance\n\n';

type LoadGenerator = 'wrk' | 'lean' | 'autocannon';

interface Serve {
  processes: number;
  origin: string;
  child: ChildProcess;
}

/** `earshot serve --processes n` on the bench database, resolved once it says it is serving. */
function startServe(processes: number, dbUrl: string): Promise<Serve> {
  const child = spawn(process.execPath, [EARSHOT_BIN, 'serve', '--processes', String(processes)], {
    env: {
      ...process.env,
      DATABASE_URL: dbUrl,
      REDIS_URL: process.env.REDIS_URL ?? DEFAULT_TEST_REDIS_URL,
      DATA_DIR: apiBenchDataDir(dbUrl),
      PORT: '0',
      DEMO_IMPORT: 'false',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const look = (d: Buffer) => {
      out += d.toString();
      const match = /is serving on (http:\/\/\S+)/.exec(out);
      if (match) resolve({ processes, origin: match[1], child });
    };
    child.stdout?.on('data', look);
    child.stderr?.on('data', look);
    child.once('exit', (code) =>
      reject(new Error(`earshot serve --processes ${processes} exited ${code}:\n${out}`)),
    );
  });
}

function stop(serve: Serve): Promise<void> {
  if (serve.child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    serve.child.once('exit', () => resolve());
    serve.child.kill('SIGTERM');
  });
}

/** Busy and total CPU time of the whole machine so far (/proc/stat, clock ticks). */
function machineTicks(): { busy: number; total: number } {
  const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].split(/\s+/).slice(1).map(Number);
  const idle = cpu[3] + cpu[4]; // idle + iowait
  const total = cpu.slice(0, 8).reduce((s, x) => s + x, 0);
  return { busy: total - idle, total };
}

interface Run {
  rps: number;
  p50: number;
  p99: number;
  /** CPU µs per answer: the serving processes (primary and workers), the load generator. */
  serverUs: number;
  loadUs: number;
  /** CPU µs per answer of the database server's sessions that the serving processes hold open. */
  databaseUs: number;
  /** Cores the serving processes kept busy (their CPU time over the window's length). */
  serverCores: number;
  /** Share of the machine's CPU time that was busy during the run (all work, ours and others'). */
  machineBusy: number;
  /** CPU µs per answer of the primary alone (with one process: the server itself). */
  primaryUs: number;
  /** Cores each HTTP worker kept busy (the primary's children; with one process, the process itself). */
  workerCores: number[];
  /** Each HTTP worker's established client connections half-way through the window. */
  workerConnections: number[];
}

/**
 * The PostgreSQL sessions (backend pids) of a `serve`'s processes: pool connections and the change
 * feed's listening connection alike, found by the local ports of the processes' sockets.
 */
async function databaseBackends(serve: Serve, dbUrl: string): Promise<number[]> {
  const ports = localPorts(processTree(serve.child.pid as number));
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number; client_port: number | null }>(
      'select pid, client_port from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
    return rows.filter((r) => r.client_port !== null && ports.has(r.client_port)).map((r) => r.pid);
  } finally {
    await client.end();
  }
}

/** CPU ms per second of a serve's processes and of their database sessions, with no load at all. */
async function idleCost(
  serve: Serve,
  dbUrl: string,
  seconds = 4,
): Promise<{ server: number; database: number }> {
  const pids = processTree(serve.child.pid as number);
  const backends = await databaseBackends(serve, dbUrl);
  const before = [...pids, ...backends].map((pid) => cpuMicros([pid]));
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  // A session the pool closed meanwhile (idle timeout) reads 0 afterwards: it is left out.
  const used = [...pids, ...backends].map((pid, i) => {
    const after = cpuMicros([pid]);
    return after >= before[i] ? after - before[i] : 0;
  });
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  return {
    server: sum(used.slice(0, pids.length)) / 1000 / seconds,
    database: sum(used.slice(pids.length)) / 1000 / seconds,
  };
}

/** One measured run (after 2 s unmeasured, so each is measured warm). */
async function run(
  serve: Serve,
  key: string,
  ids: number[],
  generator: LoadGenerator,
  dbUrl: string,
): Promise<Run> {
  const headers = { Authorization: `Token ${key}` };
  const paths = ids.map((id) => `/apiv2/sounds/${id}/`);
  const root = serve.child.pid as number;
  const pids = processTree(root);
  const workers = serve.processes > 1 ? directChildren(root) : [root];
  const port = Number(new URL(serve.origin).port);
  const once = async (seconds: number) => {
    if (generator === 'lean' || generator === 'wrk') {
      const options = { origin: serve.origin, paths, headers, connections, durationS: seconds };
      const r =
        generator === 'wrk' ? await wrkLoad({ ...options, threads: wrkThreads }) : await leanLoad(options);
      return { ...r, bad: r.non2xx + r.errors };
    }
    const cpu = process.cpuUsage();
    const r = await autocannon({
      url: serve.origin,
      connections,
      headers,
      duration: seconds,
      requests: paths.map((p) => ({ method: 'GET' as const, path: p })),
    });
    const used = process.cpuUsage(cpu);
    return {
      total: r.requests.total,
      rps: r.requests.average,
      p50: r.latency.p50,
      p99: r.latency.p99,
      bad: r.non2xx + r.errors + r.timeouts,
      cpuUsPerRequest: r.requests.total ? (used.user + used.system) / r.requests.total : 0,
    };
  };
  await once(2);
  const backends = await databaseBackends(serve, dbUrl);
  const serverBefore = cpuMicros(pids);
  const primaryBefore = cpuMicros([root]);
  const workersBefore = workers.map((pid) => cpuMicros([pid]));
  const databaseBefore = cpuMicros(backends);
  const machineBefore = machineTicks();
  // How node:cluster spread the generator's connections over the workers, read while they are open.
  let workerConnections: number[] = [];
  const census = setTimeout(
    () => {
      workerConnections = connectionsOn(workers, port);
    },
    (duration * 1000) / 2,
  );
  const r = await once(duration);
  clearTimeout(census);
  // The measured window (the generators count answers over `duration`; a few in flight at its end finish after).
  const wallUs = duration * 1e6;
  const serverAfter = cpuMicros(pids);
  const primaryAfter = cpuMicros([root]);
  const workersAfter = workers.map((pid) => cpuMicros([pid]));
  const databaseAfter = cpuMicros(backends);
  const machineAfter = machineTicks();
  if (r.bad > 0) throw new Error(`--processes ${serve.processes}, ${generator}: ${r.bad} failed answers`);
  return {
    rps: r.rps,
    p50: r.p50,
    p99: r.p99,
    serverUs: r.total ? (serverAfter - serverBefore) / r.total : 0,
    loadUs: r.cpuUsPerRequest,
    databaseUs: r.total ? (databaseAfter - databaseBefore) / r.total : 0,
    serverCores: (serverAfter - serverBefore) / wallUs,
    machineBusy:
      (machineAfter.busy - machineBefore.busy) / Math.max(1, machineAfter.total - machineBefore.total),
    primaryUs: r.total ? (primaryAfter - primaryBefore) / r.total : 0,
    workerCores: workersAfter.map((after, i) => (after - workersBefore[i]) / wallUs),
    workerConnections,
  };
}

/** The processes `pid` started (a cluster primary's workers), from /proc. */
function directChildren(pid: number): number[] {
  return fs
    .readdirSync(`/proc/${pid}/task`)
    .flatMap((task) => fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/))
    .filter(Boolean)
    .map(Number);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function writeSection(body: string): void {
  const text = fs.existsSync(RESULTS) ? fs.readFileSync(RESULTS, 'utf8') : '# API load benchmark\n';
  const [top, ...rest] = text.split(/(?=\n## )/);
  const mine = `${HEADING}${body}`;
  const at = rest.findIndex((part) => part.startsWith(HEADING));
  if (at >= 0) rest[at] = mine;
  else rest.push(mine);
  fs.writeFileSync(RESULTS, `${top.trimEnd()}\n${rest.join('')}`);
  console.log(`written its section of ${path.relative(process.cwd(), RESULTS)}`);
}

async function main(): Promise<void> {
  if (generators.length === 0) throw new Error('--load takes wrk, lean or autocannon (comma-separated)');
  // Before the catalogue is seeded: a missing wrk says so at once.
  if (generators.includes('wrk') && !findWrk()) throw new Error(WRK_MISSING);
  const loadAtStart = os.loadavg();
  const { dbName, dbUrl } = apiBenchDatabase(sounds);
  console.log(`[1/3] catalogue: ${sounds} sounds in ${dbName}`);
  const key = await ensureApiBenchCatalogue(sounds, process.argv.includes('--reseed'));
  console.log('[2/3] starting earshot serve with 1 and with 2 processes…');
  // One after the other: both primaries would migrate the same database at once.
  const one = await startServe(1, dbUrl);
  const two = await startServe(2, dbUrl);
  const ids = [1, 17, 503, 4242, 31337, 77777].filter((id) => id <= sounds);
  // What each serve costs with nothing to do (timers, the change feed), and its memory.
  const idle = [await idleCost(one, dbUrl), await idleCost(two, dbUrl)];
  const rss = [one, two].map((s) =>
    processTree(s.child.pid as number).reduce((sum, pid) => sum + processStats(pid).rss, 0),
  );
  const runs = new Map(
    generators.map((g) => [g, { one: [] as Run[], two: [] as Run[], ratios: [] as number[] }]),
  );
  try {
    for (let r = 1; r <= rounds; r++) {
      for (const g of generators) {
        const into = runs.get(g) as { one: Run[]; two: Run[]; ratios: number[] };
        process.stdout.write(`[3/3] round ${r}/${rounds}, ${g}: 1 process… `);
        const a = await run(one, key, ids, g, dbUrl);
        process.stdout.write(`${Math.round(a.rps)} req/s; 2 processes… `);
        const b = await run(two, key, ids, g, dbUrl);
        process.stdout.write(
          `${Math.round(b.rps)} req/s (×${(b.rps / a.rps).toFixed(2)}); server µs/req ${a.serverUs.toFixed(0)} / ${b.serverUs.toFixed(0)}, database ${a.databaseUs.toFixed(1)} / ${b.databaseUs.toFixed(1)}, load ${a.loadUs.toFixed(0)} / ${b.loadUs.toFixed(0)}, machine busy ${(a.machineBusy * 100).toFixed(0)}% / ${(b.machineBusy * 100).toFixed(0)}%; 2 processes: primary ${b.primaryUs.toFixed(2)} µs/answer, worker cores ${b.workerCores.map((c) => c.toFixed(2)).join(' + ')}, connections ${b.workerConnections.join(' + ')}\n`,
        );
        into.one.push(a);
        into.two.push(b);
        into.ratios.push(b.rps / a.rps);
      }
    }
  } finally {
    await Promise.all([stop(one), stop(two)]);
  }
  const loadAtEnd = os.loadavg();
  const m = (xs: Run[], f: (r: Run) => number) => median(xs.map(f));
  const row = (name: string, g: LoadGenerator, xs: Run[], ratio: string) =>
    `| ${name} | ${g} | ${Math.round(m(xs, (r) => r.rps))} | ${m(xs, (r) => r.p50)} | ${m(xs, (r) => r.p99)} | ${m(xs, (r) => r.serverUs).toFixed(0)} | ${m(xs, (r) => r.databaseUs).toFixed(1)} | ${m(xs, (r) => r.loadUs).toFixed(0)} | ${m(xs, (r) => r.serverCores).toFixed(2)} | ${Math.round(m(xs, (r) => 1e6 / r.serverUs))} | ${(m(xs, (r) => r.machineBusy) * 100).toFixed(0)}% | ${ratio} |`;
  const lines = [
    '| server | load generator | req/s (median) | p50 ms | p99 ms | server CPU µs/answer | database CPU µs/answer | load generator CPU µs/answer | server cores used | answers per server CPU-second | machine busy | 2 processes ÷ 1 |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
  ];
  const ceilings: string[] = [];
  for (const [g, x] of runs) {
    const ratio = median(x.ratios);
    lines.push(
      row('earshot serve (1 process)', g, x.one, '—'),
      row(
        'earshot serve --processes 2',
        g,
        x.two,
        `median ×${ratio.toFixed(2)} (rounds ${x.ratios.map((v) => v.toFixed(2)).join(', ')}); target ≥ ×${TARGET}: ${ratio >= TARGET ? 'met' : 'not met'}`,
      ),
    );
    // What these per-answer costs allow on two otherwise idle cores: one serving process uses at
    // most one core, and everything (servers, their database sessions, the generator) shares two.
    const cost = (xs: Run[]) => ({
      s: m(xs, (r) => r.serverUs),
      d: m(xs, (r) => r.databaseUs),
      l: m(xs, (r) => r.loadUs),
    });
    const [c1, c2] = [cost(x.one), cost(x.two)];
    const best1 = Math.min(1e6 / c1.s, 2e6 / (c1.s + c1.d + c1.l));
    const best2 = Math.min(2e6 / c2.s, 2e6 / (c2.s + c2.d + c2.l));
    const perCpu = median(x.two.map((b, i) => x.one[i].serverUs / b.serverUs));
    ceilings.push(
      `- ${g}: the measured costs allow at most ×${(best2 / best1).toFixed(2)} on two idle cores (1 process ≤ ${Math.round(best1)} answers/s, 2 processes ≤ ${Math.round(best2)}); ` +
        `with the generator's CPU taken out (a generator on cores of its own) the ceiling is ×${(Math.min(2e6 / c2.s, 2e6 / (c2.s + c2.d)) / Math.min(1e6 / c1.s, 2e6 / (c1.s + c1.d))).toFixed(2)}; ` +
        `answers per server CPU-second, 2 processes ÷ 1: median ×${perCpu.toFixed(2)}.`,
      `- ${g}, how the 2 processes shared the work, by round: the primary ${x.two.map((b) => b.primaryUs.toFixed(2)).join(', ')} µs CPU per answer; ` +
        `cores each worker used ${x.two.map((b) => b.workerCores.map((c) => c.toFixed(2)).join(' + ')).join(', ')}; ` +
        `the generator's connections each worker held half-way through ${x.two.map((b) => b.workerConnections.join(' + ')).join(', ')}.`,
    );
  }
  const body = [
    `\`npx earshot bench processes --sounds ${sounds} --duration ${duration} --connections ${connections} --rounds ${rounds} --load ${generators.join(',')}\``,
    '',
    `Run ${new Date().toISOString()}, ${os.cpus().length} cores, ${connections} connections, the load generator on the same cores (wrk in a process of its own with ${wrkThreads} thread(s), the others in the bench's process); ` +
      `load average ${loadAtStart.map((l) => l.toFixed(1)).join(' / ')} at the start and ${loadAtEnd.map((l) => l.toFixed(1)).join(' / ')} at the end (other work shares the machine). ` +
      'CPU per answer is read from the scheduler (`/proc/<pid>/task/*/schedstat` of the serving processes and of the PostgreSQL sessions they hold open, found by their sockets\' ports; the load generator’s own `process.cpuUsage()`, and wrk’s `/proc/self/stat` read by its script when it finishes); "server cores used" is the serving processes\' CPU time over the window; "machine busy" is the share of all CPU time that was not idle during the measured window (`/proc/stat`), other work included.',
    '',
    ...lines,
    '',
    ...ceilings,
    `- With no load: 1 process ${idle[0].server.toFixed(1)} ms CPU per second (its database sessions ${idle[0].database.toFixed(1)}), ` +
      `2 processes ${idle[1].server.toFixed(1)} (${idle[1].database.toFixed(1)}); resident memory ${(rss[0] / 2 ** 20).toFixed(0)} MB and ${(rss[1] / 2 ** 20).toFixed(0)} MB (primary and workers).`,
    '',
  ].join('\n');
  console.log(`\n${body}`);
  writeSection(body);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
