// Soak benchmark (issue 19): a long run of mixed realistic traffic at a steady rate with uploads
// processed meanwhile, watching what leaks show as — resident memory, open file descriptors and p99
// latency per window — and counting every error. The service runs as at scale: `earshot serve` and
// one `earshot worker` on the PostgreSQL server and Redis (a Redis database of its own), over a
// synthetic catalogue in its own database (uploads go into it, so it is not the API bench's).
//
//   npx earshot bench soak [--minutes 30] [--window 60] [--rate 80] [--connections 20]
//     [--sounds 10000] [--upload-every 15] [--save]

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bearerGrant } from '@earshot/api/testing';
import { openCatalogue } from '@earshot/catalogue';
import { createLogger, DEFAULT_TEST_REDIS_URL } from '@earshot/common';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { apiBenchDatabase, ensureApiBenchCatalogue } from './api-bench-catalogue.ts';
import { arg } from './args.ts';
import { processStats, startEarshot, stopChild } from './processes.ts';
import {
  realisticSearches,
  searchPath,
  searchStream,
  seededRandom,
  uniformIds,
} from './realistic-workload.ts';
import { uploadForm, uploadSources } from './upload-sources.ts';

const minutes = Number(arg('minutes', '30'));
const windowSeconds = Number(arg('window', '60'));
const rate = Number(arg('rate', '80'));
const connections = Number(arg('connections', '20'));
const sounds = Number(arg('sounds', '10000'));
const uploadEvery = Number(arg('upload-every', '15'));
const save = process.argv.includes('--save');
const windows = Math.max(3, Math.round((minutes * 60) / windowSeconds));

const here = path.dirname(fileURLToPath(import.meta.url));
const RESULTS = path.join(here, '..', 'results', 'soak.md');
/** A Redis database of its own: the soak's queue and rate-limit keys never meet anyone else's. */
const REDIS_DB = 9;
/** Flat: the last third of the windows against the first third (the first window is warm-up). */
const MEMORY_GROWTH_LIMIT = 0.1;
const FD_GROWTH_LIMIT = 20;
const P99_RISE_LIMIT = 1.5;

/** The request mix: what a sound-sharing API's readers mostly ask (shares of the requests). */
const MIX = [
  { kind: 'sound instance', share: 0.5 },
  { kind: 'text search', share: 0.3 },
  { kind: 'similar sounds', share: 0.15 },
  { kind: 'sound analysis', share: 0.05 },
] as const;

interface Window {
  index: number;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  status4xx: number;
  status5xx: number;
  errors: number;
  timeouts: number;
  serveRss: number;
  serveFds: number;
  workerRss: number;
  workerFds: number;
  uploads: number;
  uploadFailures: number;
}

/** Request paths drawn up front (seeded): uniform ids, Zipf text searches over ≥ 10,000 distinct ones. */
async function drawPaths(dbUrl: string, count: number): Promise<string[]> {
  const random = seededRandom(19);
  const searches = searchStream(await realisticSearches(dbUrl, 10_000, random), count, random);
  const ids = uniformIds(sounds, count, random);
  return ids.map((id, i) => {
    let u = random();
    for (const { kind, share } of MIX) {
      u -= share;
      if (u > 0) continue;
      if (kind === 'text search') return searchPath(searches[i]);
      if (kind === 'similar sounds') return `/apiv2/sounds/${id}/similar/?fields=id,name,username`;
      if (kind === 'sound analysis') return `/apiv2/sounds/${id}/analysis/`;
      break;
    }
    return `/apiv2/sounds/${id}/`;
  });
}

/** One described upload through the API (a user's upload: processing starts at once). */
async function upload(origin: string, token: string, source: string, n: number, work: string) {
  const { form, remove } = await uploadForm(source, n, work, 'Soak benchmark');
  try {
    const res = await fetch(`${origin}/apiv2/sounds/upload/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
      body: form,
    });
    const body = (await res.json()) as { id?: number; detail?: unknown };
    if (res.status !== 201 && res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(body)}`);
    return body.id as number;
  } finally {
    remove();
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const mb = (bytes: number) => bytes / 1024 ** 2;

/** Least-squares slope of ys over equally spaced windows, per hour. */
function slopePerHour(ys: number[]): number {
  const n = ys.length;
  if (n < 2) return 0;
  const mx = (n - 1) / 2;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  ys.forEach((y, x) => {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  });
  return (num / den) * (3600 / windowSeconds);
}

async function main(): Promise<void> {
  const loadAtStart = os.loadavg();
  const { dbName, dbUrl } = apiBenchDatabase(sounds, 'earshot_soak');
  console.log(`[1/4] catalogue: ${sounds} sounds in ${dbName}`);
  const key = await ensureApiBenchCatalogue(sounds, false, 'earshot_soak');
  const redisUrl = new URL(process.env.REDIS_URL ?? DEFAULT_TEST_REDIS_URL);
  redisUrl.pathname = `/${REDIS_DB}`;
  const redis = new Redis(redisUrl.toString(), { lazyConnect: true });
  await redis.connect();
  await redis.flushdb();
  await redis.quit();

  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-soak-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: dbUrl,
    REDIS_URL: redisUrl.toString(),
    DATA_DIR: path.join(work, 'data'),
    PORT: '0',
    DEMO_IMPORT: 'false',
    OAUTH2_HTTPS_ONLY: 'false',
    LOG_LEVEL: 'warn',
  };
  console.log('[2/4] starting earshot serve and one earshot worker…');
  const serve = await startEarshot(['serve'], env, /is serving on (http:\/\/\S+)/);
  const worker = await startEarshot(['worker', '--concurrency', '1'], env, /ready/);
  const origin = serve.match[1];
  // Load starts once the service says it is ready (similar sounds answer 503 while the index loads).
  for (const started = Date.now(); ; ) {
    const ready = await fetch(`${origin}/ready`).then(
      (r) => r.status,
      () => 0,
    );
    if (ready === 200) break;
    if (Date.now() - started > 120_000) throw new Error('earshot serve was not ready within 2 minutes');
    await new Promise((r) => setTimeout(r, 500));
  }
  const catalogue = await openCatalogue({
    config: { DATABASE_URL: dbUrl, dataDir: env.DATA_DIR as string },
    logger: createLogger('silent'),
    role: 'command',
    description: 'soak bench',
  });
  const lines: string[] = [];
  try {
    const token = (await bearerGrant(catalogue.db, origin, 'soak-uploader')).accessToken;
    const perWindow = Math.ceil(rate * windowSeconds * 1.2);
    console.log(`[3/4] drawing ${perWindow * windows} requests…`);
    const paths = await drawPaths(dbUrl, perWindow * windows);
    const sources = await uploadSources(8);
    const uploaded: number[] = [];
    let uploadFailures = 0;
    let uploadErrors: string[] = [];
    const uploader = setInterval(() => {
      const n = uploaded.length + uploadFailures;
      upload(origin, token, sources[n % sources.length], n, work).then(
        (id) => uploaded.push(id),
        (err: Error) => {
          uploadFailures++;
          const cause = (err as { cause?: { message?: string; code?: string } }).cause;
          uploadErrors.push(`${err.message}${cause ? ` (${cause.code ?? ''} ${cause.message ?? ''})` : ''}`);
        },
      );
    }, uploadEvery * 1000);

    console.log(
      `[4/4] ${windows} windows of ${windowSeconds} s at ${rate} req/s over ${connections} connections, an upload every ${uploadEvery} s`,
    );
    const results: Window[] = [];
    const refusals: string[] = [];
    let next = 0;
    for (let w = 1; w <= windows; w++) {
      const result = await autocannon({
        url: origin,
        connections,
        overallRate: rate,
        duration: windowSeconds,
        headers: { Authorization: `Token ${key}` },
        requests: [
          {
            method: 'GET',
            path: paths[0],
            setupRequest: (req: autocannon.Request, context: object) => {
              const path = paths[next++ % paths.length];
              (context as { path?: string }).path = path;
              return { ...req, path };
            },
            onResponse: (status: number, body: string, context: object) => {
              // A 4xx is no error of the service's only when the request asked for something that
              // is not there: keep a few to print, so the run shows what they were.
              if (status >= 400 && refusals.length < 5)
                refusals.push(`${status} ${(context as { path?: string }).path} ${body.slice(0, 160)}`);
            },
          },
        ],
      });
      const s = processStats(serve.child.pid as number);
      const k = processStats(worker.child.pid as number);
      const row: Window = {
        index: w,
        requests: result.requests.total,
        rps: result.requests.average,
        p50: result.latency.p50,
        p99: result.latency.p99,
        status4xx: result['4xx'],
        status5xx: result['5xx'],
        errors: result.errors,
        timeouts: result.timeouts,
        serveRss: s.rss,
        serveFds: s.fds,
        workerRss: k.rss,
        workerFds: k.fds,
        uploads: uploaded.length,
        uploadFailures,
      };
      results.push(row);
      console.log(
        `  window ${w}/${windows}: ${row.rps.toFixed(0)} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms, ` +
          `4xx ${row.status4xx}, 5xx ${row.status5xx}, errors ${row.errors + row.timeouts}; ` +
          `serve ${mb(row.serveRss).toFixed(0)} MB ${row.serveFds} fds, worker ${mb(row.workerRss).toFixed(0)} MB ${row.workerFds} fds; ` +
          `uploads ${row.uploads} (failed ${row.uploadFailures})`,
      );
      for (const e of uploadErrors) console.log(`    upload failed: ${e}`);
      for (const r of refusals) console.log(`    refused: ${r}`);
      uploadErrors = [];
      refusals.length = 0;
    }
    clearInterval(uploader);

    // Nothing lost: every upload ends processed (pending moderation) or failed with a reason.
    process.stdout.write('  waiting for the uploads to finish processing');
    const deadline = Date.now() + 180_000;
    let states: { processing_state: string; n: number }[] = [];
    for (;;) {
      states = await catalogue.db
        .selectFrom('sounds')
        .select(['processing_state', (eb) => eb.fn.countAll<number>().as('n')])
        .where('id', 'in', uploaded.length > 0 ? uploaded : [-1])
        .groupBy('processing_state')
        .execute();
      const open = states
        .filter((r) => r.processing_state !== 'Processed' && r.processing_state !== 'Failed')
        .reduce((a, r) => a + Number(r.n), 0);
      if (open === 0 || Date.now() > deadline) break;
      process.stdout.write('.');
      await new Promise((r) => setTimeout(r, 2000));
    }
    process.stdout.write('\n');
    const count = (state: string) => Number(states.find((r) => r.processing_state === state)?.n ?? 0);
    const processed = count('Processed');
    const failed = count('Failed');
    const unfinished = uploaded.length - processed - failed;

    lines.push(...report(results, { processed, failed, unfinished, uploaded: uploaded.length }, loadAtStart));
  } finally {
    await catalogue.close();
    await Promise.all([stopChild(serve.child), stopChild(worker.child)]);
    fs.rmSync(work, { recursive: true, force: true });
  }
  const text = lines.join('\n');
  console.log(`\n${text}`);
  if (save) {
    fs.writeFileSync(RESULTS, `${text}\n`);
    console.log(`\nwritten to ${path.relative(process.cwd(), RESULTS)}`);
  }
}

function report(
  rows: Window[],
  uploads: { processed: number; failed: number; unfinished: number; uploaded: number },
  loadAtStart: number[],
): string[] {
  const steady = rows.slice(1);
  const third = Math.max(1, Math.floor(steady.length / 3));
  const first = steady.slice(0, third);
  const last = steady.slice(-third);
  const growth = (pick: (r: Window) => number) => median(last.map(pick)) / median(first.map(pick)) - 1;
  const serveGrowth = growth((r) => r.serveRss);
  const workerGrowth = growth((r) => r.workerRss);
  const fdsRange = (pick: (r: Window) => number) =>
    Math.max(...steady.map(pick)) - Math.min(...steady.map(pick));
  const p99Rise = median(last.map((r) => r.p99)) / median(first.map((r) => r.p99));
  const total = rows.reduce((a, r) => a + r.requests, 0);
  const fivexx = rows.reduce((a, r) => a + r.status5xx, 0);
  const fourxx = rows.reduce((a, r) => a + r.status4xx, 0);
  const broken = rows.reduce((a, r) => a + r.errors + r.timeouts, 0);
  const uploadFailures = rows[rows.length - 1].uploadFailures;
  const verdict = (ok: boolean) => (ok ? '✓' : '✗');
  const errorsOk = fivexx + broken + uploadFailures === 0 && uploads.unfinished === 0;
  return [
    '# Soak benchmark',
    '',
    `\`npx earshot bench soak --minutes ${minutes} --window ${windowSeconds} --rate ${rate} --connections ${connections} --sounds ${sounds} --upload-every ${uploadEvery}\``,
    '',
    `${new Date().toISOString()}: ${os.cpus().length} cores, load average ${loadAtStart.map((l) => l.toFixed(2)).join(' ')} at the start, ` +
      `${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')} at the end. \`earshot serve\` and one \`earshot worker\` (PostgreSQL server, Redis), ` +
      `${sounds} synthetic sounds; the load is ${MIX.map((m) => `${m.share * 100}% ${m.kind}`).join(', ')} ` +
      '(ids uniform, text searches Zipf over 10,000 distinct ones), at a fixed rate, with a described upload ' +
      `through the API every ${uploadEvery} s processed by the worker meanwhile.`,
    '',
    '| window | req/s | p50 ms | p99 ms | 4xx | 5xx | errors | serve MB | serve fds | worker MB | worker fds | uploads |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.index} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.status4xx} | ${r.status5xx} | ${r.errors + r.timeouts} | ${mb(r.serveRss).toFixed(0)} | ${r.serveFds} | ${mb(r.workerRss).toFixed(0)} | ${r.workerFds} | ${r.uploads} |`,
    ),
    '',
    'Verdict (the first window is warm-up; "last third against first third" compares medians of the windows):',
    '',
    '| check | measured | limit | |',
    '|---|---|---|---|',
    `| errors: 5xx, socket errors, timeouts, failed uploads | ${fivexx} / ${broken} / ${uploadFailures} of ${total} requests and ${uploads.uploaded + uploadFailures} uploads (4xx: ${fourxx}) | 0 | ${verdict(fivexx + broken + uploadFailures === 0)} |`,
    `| uploads: processed / failed / unfinished | ${uploads.processed} / ${uploads.failed} / ${uploads.unfinished} | none failed or unfinished (every upload is a valid file) | ${verdict(uploads.unfinished === 0 && uploads.failed === 0)} |`,
    `| serve memory, last third against first | ${(serveGrowth * 100).toFixed(1)}% (slope ${slopePerHour(steady.map((r) => mb(r.serveRss))).toFixed(0)} MB/h) | ≤ ${MEMORY_GROWTH_LIMIT * 100}% | ${verdict(serveGrowth <= MEMORY_GROWTH_LIMIT)} |`,
    `| worker memory, last third against first | ${(workerGrowth * 100).toFixed(1)}% (slope ${slopePerHour(steady.map((r) => mb(r.workerRss))).toFixed(0)} MB/h) | ≤ ${MEMORY_GROWTH_LIMIT * 100}% | ${verdict(workerGrowth <= MEMORY_GROWTH_LIMIT)} |`,
    `| file descriptors, range over the run (serve / worker) | ${fdsRange((r) => r.serveFds)} / ${fdsRange((r) => r.workerFds)} | ≤ ${FD_GROWTH_LIMIT} | ${verdict(fdsRange((r) => r.serveFds) <= FD_GROWTH_LIMIT && fdsRange((r) => r.workerFds) <= FD_GROWTH_LIMIT)} |`,
    `| p99, last third against first | ×${p99Rise.toFixed(2)} | ≤ ×${P99_RISE_LIMIT} | ${verdict(p99Rise <= P99_RISE_LIMIT)} |`,
    '',
    errorsOk ? 'No request or upload was lost.' : 'Errors or unfinished uploads: see the table.',
  ];
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
