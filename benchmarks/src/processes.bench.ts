// `earshot serve --processes 2` against one process (issue 18, "Both cores for the API"): both
// serve the API bench catalogue (api-bench-catalogue.ts) from the PostgreSQL server with Redis, and
// autocannon (in this process) loads the warm sound-instance row of each in alternating rounds, so
// load from other work falls on both alike. The table: medians of the rounds, and the ratio of
// each round against the target 1.6×.
//
//   npx earshot bench processes [--sounds 10000] [--duration 8] [--connections 50] [--rounds 5]

import { type ChildProcess, spawn } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { DEFAULT_TEST_REDIS_URL } from '@earshot/common';
import autocannon from 'autocannon';
import { apiBenchDatabase, ensureApiBenchCatalogue } from './api-bench-catalogue.ts';
import { arg } from './args.ts';

const sounds = Number(arg('sounds', '10000'));
const duration = Number(arg('duration', '8'));
const connections = Number(arg('connections', '50'));
const rounds = Number(arg('rounds', '5'));
const TARGET = 1.6;
const CLI_MAIN = fileURLToPath(new URL('../../packages/cli/src/main.ts', import.meta.url));

interface Serve {
  processes: number;
  origin: string;
  child: ChildProcess;
}

/** `earshot serve --processes n` on the bench database, resolved once it says it is serving. */
function startServe(processes: number, dbUrl: string): Promise<Serve> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', CLI_MAIN, 'serve', '--processes', String(processes)],
    {
      env: {
        ...process.env,
        DATABASE_URL: dbUrl,
        REDIS_URL: process.env.REDIS_URL ?? DEFAULT_TEST_REDIS_URL,
        DATA_DIR: '/tmp/earshot-api-bench',
        PORT: '0',
        DEMO_IMPORT: 'false',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
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

/** One measured run (after 2 s unmeasured, so each is measured warm): req/s and p50/p99 in ms. */
async function run(serve: Serve, key: string, ids: number[]) {
  const options = {
    url: serve.origin,
    connections,
    headers: { Authorization: `Token ${key}` },
    requests: ids.map((id) => ({ method: 'GET' as const, path: `/apiv2/sounds/${id}/` })),
  };
  await autocannon({ ...options, duration: 2 });
  const result = await autocannon({ ...options, duration });
  if (result.non2xx + result.errors + result.timeouts > 0) {
    throw new Error(
      `--processes ${serve.processes}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`,
    );
  }
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const loadAtStart = os.loadavg();
  const { dbName, dbUrl } = apiBenchDatabase(sounds);
  console.log(`[1/3] catalogue: ${sounds} sounds in ${dbName}`);
  const key = await ensureApiBenchCatalogue(sounds, process.argv.includes('--reseed'));
  console.log('[2/3] starting earshot serve with 1 and with 2 processes…');
  // One after the other: both primaries would migrate the same database at once.
  const one = await startServe(1, dbUrl);
  const two = await startServe(2, dbUrl);
  const ids = [1, 17, 503, 4242, 31337, 77777].filter((id) => id <= sounds);
  const runs = { one: [] as Awaited<ReturnType<typeof run>>[], two: [] as Awaited<ReturnType<typeof run>>[] };
  const ratios: number[] = [];
  try {
    for (let r = 1; r <= rounds; r++) {
      process.stdout.write(`[3/3] round ${r}/${rounds}: 1 process… `);
      const a = await run(one, key, ids);
      process.stdout.write(`${Math.round(a.rps)} req/s; 2 processes… `);
      const b = await run(two, key, ids);
      process.stdout.write(`${Math.round(b.rps)} req/s (×${(b.rps / a.rps).toFixed(2)})\n`);
      runs.one.push(a);
      runs.two.push(b);
      ratios.push(b.rps / a.rps);
    }
  } finally {
    await Promise.all([stop(one), stop(two)]);
  }
  const row = (name: string, xs: typeof runs.one, ratio: string) =>
    `| ${name} | ${Math.round(median(xs.map((x) => x.rps)))} | ${median(xs.map((x) => x.p50))} | ${median(xs.map((x) => x.p99))} | ${ratio} |`;
  const loadAtEnd = os.loadavg();
  console.log(
    [
      '',
      '# earshot serve --processes 2 against 1: warm sound instance',
      '',
      `\`npx earshot bench processes --sounds ${sounds} --duration ${duration} --connections ${connections} --rounds ${rounds}\``,
      '',
      `${new Date().toISOString()}, ${os.cpus().length} cores, ${connections} connections, autocannon in this process, ` +
        `load average ${loadAtStart.map((l) => l.toFixed(2)).join(' ')} at start, ${loadAtEnd.map((l) => l.toFixed(2)).join(' ')} at end`,
      '',
      '| server | req/s (median) | p50 ms | p99 ms | 2 processes ÷ 1 |',
      '| --- | ---: | ---: | ---: | --- |',
      row('earshot serve (1 process)', runs.one, '—'),
      row(
        'earshot serve --processes 2',
        runs.two,
        `median ×${median(ratios).toFixed(2)} (rounds ${ratios.map((x) => x.toFixed(2)).join(', ')}); target ≥ ×${TARGET}: ${median(ratios) >= TARGET ? 'met' : 'NOT met'}`,
      ),
      '',
    ].join('\n'),
  );
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
