// Pack download benchmark (issue 15 part B): the zip of a pack streamed by the API against the floor
// of `zip -0` over the same files.
//   npx earshot bench download [--runs 3] [--sounds 200] [--big 1000] [--database embedded|server]
// The API serves in this process (embedded catalogue); curl, in its own process as a real client,
// downloads the zip of a `--sounds` pack to /dev/null, as the floor writes its zip to /dev/null
// (target ≥ 80% of its throughput). Also: the zip stream alone read in process (no HTTP), CPU per MB
// of both, the first byte of a `--big` pack (target ≤ 100 ms), and the server's memory growth while
// streaming packs of two sizes (constant memory). Originals are copies of fixture audio under a
// temporary DATA_DIR (the big pack hard-links them: only its first byte is read). Without Debian's
// `zip` the floor rows are skipped with a message. Results: benchmarks/results/download.md.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32 } from 'node:zlib';
import { buildAppDeps, startServer } from '@earshot/api';
import { createUser, type Db, findOrCreatePack, openCatalogue } from '@earshot/catalogue';
import { createLogger, DEFAULT_TEST_DATABASE_URL, loadConfig } from '@earshot/common';
import { ensureFixtures, fixture } from '@earshot/fixtures';
import { createApiCredential, Downloads, OAuth2Service } from '@earshot/services';
import pg from 'pg';
import { accessToken } from './access-token.ts';
import { arg } from './args.ts';

const runs = Number(arg('runs', '3'));
/** `embedded` (PGlite hosted in the API's process) or `server` (a PostgreSQL server, as at scale). */
const database = arg('database', 'embedded');
const packSounds = Number(arg('sounds', '200'));
const bigSounds = Number(arg('big', '1000'));
const here = path.dirname(fileURLToPath(import.meta.url));
const resultsFile = path.join(here, '..', 'results', 'download.md');
const MB = 1024 * 1024;
const SOURCES = ['loudness-pink-m14lufs', 'loudness-sine1k-m23lufs', 'clicks-120bpm', 'ch-6'];

const median = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** A pack of `count` public sounds whose originals are copies (or hard links) of fixture audio. */
async function makePack(
  db: Db,
  dataDir: string,
  userId: number,
  name: string,
  count: number,
  link: boolean,
  withCrc = true,
): Promise<{ id: number; files: string[]; bytes: number }> {
  const pack = await findOrCreatePack(db, userId, name);
  const files: string[] = [];
  let bytes = 0;
  const rows = [];
  // Each source's CRC-32 once, as intake takes it while the upload streams in.
  const crcs = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    const source = fixture(SOURCES[i % SOURCES.length]);
    const relative = path.join('bench', name, `${i}.wav`);
    const file = path.join(dataDir, relative);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    if (link) fs.linkSync(source, file);
    else fs.copyFileSync(source, file);
    files.push(file);
    bytes += fs.statSync(file).size;
    if (withCrc && !crcs.has(source)) crcs.set(source, crc32(fs.readFileSync(source)));
    rows.push({
      user_id: userId,
      pack_id: pack.id,
      name: `${name} sound ${i}`,
      license: 'Attribution' as const,
      original_filename: `${i}.wav`,
      original_path: relative,
      crc32: withCrc ? crcs.get(source) : null,
      processing_state: 'Processed' as const,
      moderation_state: 'ok' as const,
    });
  }
  // Benchmarks may write their setup directly (docs/conventions.md); 250 rows a statement.
  for (let i = 0; i < rows.length; i += 250)
    await db
      .insertInto('sounds')
      .values(rows.slice(i, i + 250))
      .execute();
  return { id: pack.id, files, bytes };
}

async function bearer(db: Db, userId: number, username: string): Promise<string> {
  const oauth = new OAuth2Service({ db });
  const app = await createApiCredential(db, {
    username,
    name: 'bench',
    redirectUri: 'http://127.0.0.1/cb',
    level: 'unlimited',
  });
  return accessToken(oauth, app, userId);
}

const clockTicks = Number(spawnSync('getconf', ['CLK_TCK']).stdout?.toString().trim()) || 100;

/** CPU ms of this process and of its children that have ended (curl, zip), from /proc. */
function cpuMs(): { self: number; children: number } {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const usage = process.cpuUsage();
  return {
    self: (usage.user + usage.system) / 1000,
    children: ((Number(fields[13]) + Number(fields[14])) * 1000) / clockTicks,
  };
}

interface Download {
  firstByteMs: number;
  totalMs: number;
  /** CPU of the server (this process) and of curl together. */
  cpuMs: number;
  bytes: number;
  /** Peak RSS growth of this process (the server) over its RSS before the request. */
  rssGrowth: number;
}

/** Samples this process's resident size until stopped; returns the peak growth. */
function watchMemory(): () => number {
  (globalThis as { gc?: () => void }).gc?.();
  const base = process.memoryUsage.rss();
  let peak = base;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 20);
  return () => {
    clearInterval(timer);
    return Math.max(peak, process.memoryUsage.rss()) - base;
  };
}

/**
 * A whole download by curl, a client in its own process as real ones are, discarding the body
 * (as the floor's output goes to /dev/null).
 */
function curlDownload(url: string, token: string): Promise<Download> {
  const memory = watchMemory();
  const cpu0 = cpuMs();
  return new Promise((resolve, reject) => {
    const args = ['-s', '-o', '/dev/null', '-H', `Authorization: Bearer ${token}`];
    args.push('-w', '%{http_code} %{time_starttransfer} %{time_total} %{size_download}', url);
    const child = spawn('curl', args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.on('error', reject);
    child.on('close', () => {
      const rssGrowth = memory();
      const cpu1 = cpuMs();
      const cpu = cpu1.self - cpu0.self + cpu1.children - cpu0.children;
      const [status, first, total, size] = out.trim().split(' ').map(Number);
      if (status !== 200) reject(new Error(`${url}: ${out}`));
      else resolve({ firstByteMs: first * 1000, totalMs: total * 1000, cpuMs: cpu, bytes: size, rssGrowth });
    });
  });
}

/** GETs a URL from this process until the first body byte, then aborts: the latency to start. */
function firstByteMs(url: string, token: string): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { Authorization: `Bearer ${token}` } }, (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`${url}: ${res.statusCode}`));
        res.resume();
        return;
      }
      res.once('data', () => {
        resolve(performance.now() - t0);
        req.destroy();
      });
      res.on('error', () => {}); // the abort
    });
    req.on('error', () => {});
  });
}

/** `zip -0` of the same files, its output to /dev/null: the wall time and CPU; and the zip's size. */
function zipFloor(files: string[]): Promise<{ totalMs: number; cpuMs: number; bytes: number }> {
  const list = `${files.join('\n')}\n`;
  return new Promise((resolve, reject) => {
    const sink = fs.openSync('/dev/null', 'w');
    const cpu0 = cpuMs().children;
    const t0 = performance.now();
    const child = spawn('zip', ['-0', '-q', '-j', '-', '-@'], { stdio: ['pipe', sink, 'inherit'] });
    child.on('error', reject);
    child.on('close', (code) => {
      const totalMs = performance.now() - t0;
      const cpu = cpuMs().children - cpu0;
      fs.closeSync(sink);
      if (code !== 0) return reject(new Error(`zip exited ${code}`));
      // The same again into a file, untimed, only for its size.
      const out = path.join(os.tmpdir(), `earshot-bench-zip-${process.pid}.zip`);
      spawnSync('zip', ['-0', '-q', '-j', out, '-@'], { input: list });
      const bytes = fs.statSync(out).size;
      fs.rmSync(out, { force: true });
      resolve({ totalMs, cpuMs: cpu, bytes });
    });
    child.stdin?.end(list);
  });
}

const hasZip = spawnSync('zip', ['-v'], { stdio: 'ignore' }).status === 0;
await ensureFixtures();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-bench-download-'));
const logger = createLogger('warn');
/** A fresh database for the run on the PostgreSQL server (DATABASE_URL, else the local test server). */
async function benchDatabase(): Promise<string> {
  const base = process.env.DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL;
  const name = 'earshot_download_bench';
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

const config = loadConfig({
  PORT: '0',
  DATA_DIR: dataDir,
  LOG_LEVEL: 'warn',
  // Plain http on 127.0.0.1: no TLS in front of this server.
  OAUTH2_HTTPS_ONLY: 'false',
  ...(database === 'server' ? { DATABASE_URL: await benchDatabase() } : {}),
});
const catalogue = await openCatalogue({ config, logger, role: 'server', description: 'download bench' });
const lines: string[] = [];
try {
  const db = catalogue.db;
  const user = await createUser(db, { username: 'bench' });
  const small = await makePack(db, dataDir, user.id, 'small', Math.max(1, Math.round(packSounds / 4)), false);
  const main = await makePack(db, dataDir, user.id, 'main', packSounds, false);
  const big = await makePack(db, dataDir, user.id, 'big', bigSounds, true);
  // The same files as sounds stored before the CRC column: the zip computes each CRC on the way.
  const old = await makePack(db, dataDir, user.id, 'old', packSounds, false, false);
  const token = await bearer(db, user.id, 'bench');
  const deps = await buildAppDeps({ config, logger, catalogue, similarityRefreshMs: 0 });
  const server = await startServer(deps);
  const url = (packId: number) => `${server.origin}/apiv2/packs/${packId}/download/`;
  try {
    // Warm the page cache and the code paths (the first downloads after start run colder code).
    for (let i = 0; i < 3; i++) await curlDownload(url(main.id), token);
    if (hasZip) await zipFloor(main.files);
    const ours: Download[] = [];
    const floor: Array<{ totalMs: number; cpuMs: number; bytes: number }> = [];
    for (let i = 0; i < runs; i++) {
      ours.push(await curlDownload(url(main.id), token));
      if (hasZip) floor.push(await zipFloor(main.files));
    }
    // The zip alone, read in process without HTTP: what the HTTP layer adds is the difference.
    const direct: Array<{ rate: number; cpuRate: number }> = [];
    const downloads = new Downloads(db, dataDir);
    for (let i = 0; i < runs; i++) {
      const cpu0 = cpuMs().self;
      const t0 = performance.now();
      const { stream } = await downloads.packArchive(main.id, server.origin);
      let bytes = 0;
      for await (const chunk of stream) bytes += (chunk as Buffer).length;
      direct.push({
        rate: bytes / MB / ((performance.now() - t0) / 1000),
        cpuRate: bytes / MB / ((cpuMs().self - cpu0) / 1000),
      });
    }
    const oldRuns: Download[] = [];
    for (let i = 0; i < runs; i++) oldRuns.push(await curlDownload(url(old.id), token));
    const first: number[] = [];
    for (let i = 0; i < Math.max(5, runs); i++) first.push(await firstByteMs(url(big.id), token));
    const smallRun = await curlDownload(url(small.id), token);

    const rate = (bytes: number, ms: number) => bytes / MB / (ms / 1000);
    const oursRate = median(ours.map((d) => rate(d.bytes, d.totalMs)));
    const oursCpuRate = median(ours.map((d) => rate(d.bytes, d.cpuMs)));
    const directRate = median(direct.map((d) => d.rate));
    const directCpuRate = median(direct.map((d) => d.cpuRate));
    const mb = (main.bytes / MB).toFixed(0);
    const pct = (a: number, b: number) => `${((a / b) * 100).toFixed(0)}%`;
    const load = os.loadavg()[0].toFixed(1);
    lines.push(
      '# Pack download',
      '',
      `\`npx earshot bench download --runs ${runs} --sounds ${packSounds} --big ${bigSounds} --database ${database}\` on ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), load average ${load} at the end, ${new Date().toISOString().slice(0, 16)}Z. Medians of ${runs} runs. The API serves over HTTP on 127.0.0.1 from ${database === 'server' ? 'a PostgreSQL server catalogue' : 'an embedded catalogue (PGlite hosted in the same process)'}; curl downloads the zip to /dev/null, as the floor \`zip -0 -j - <files>\` writes its zip to /dev/null. Zip entries are stored, as \`zip -0\` stores them; the sounds carry the CRC-32 intake records (the row without one reads sounds stored before the column). CPU rows count MB per CPU-second (server and curl together for the download; zip alone for the floor), which a busy machine disturbs less than wall time. The first byte is timed from a request made in the server's process.`,
      '',
      '| row | floor (zip -0) | earshot | ratio | target |',
      '| --- | --- | --- | --- | --- |',
    );
    if (hasZip) {
      const floorRate = median(floor.map((d) => rate(d.bytes, d.totalMs)));
      const floorCpuRate = median(floor.map((d) => rate(d.bytes, d.cpuMs)));
      const oldRate = median(oldRuns.map((d) => rate(d.bytes, d.totalMs)));
      const oldCpuRate = median(oldRuns.map((d) => rate(d.bytes, d.cpuMs)));
      lines.push(
        `| ${packSounds}-sound pack (${mb} MB) served to curl: wall throughput | ${floorRate.toFixed(0)} MB/s | ${oursRate.toFixed(0)} MB/s | ${pct(oursRate, floorRate)} | ≥ 80% |`,
        `| the same, per CPU-second | ${floorCpuRate.toFixed(0)} MB/s | ${oursCpuRate.toFixed(0)} MB/s | ${pct(oursCpuRate, floorCpuRate)} | |`,
        `| the zip stream alone, read in process (no HTTP): wall | ${floorRate.toFixed(0)} MB/s | ${directRate.toFixed(0)} MB/s | ${pct(directRate, floorRate)} | |`,
        `| the zip stream alone, per CPU-second | ${floorCpuRate.toFixed(0)} MB/s | ${directCpuRate.toFixed(0)} MB/s | ${pct(directCpuRate, floorCpuRate)} | |`,
        `| the same pack as sounds without a stored CRC (computed on the way), served to curl: wall | ${floorRate.toFixed(0)} MB/s | ${oldRate.toFixed(0)} MB/s | ${pct(oldRate, floorRate)} | |`,
        `| the same, per CPU-second | ${floorCpuRate.toFixed(0)} MB/s | ${oldCpuRate.toFixed(0)} MB/s | ${pct(oldCpuRate, floorCpuRate)} | |`,
      );
    } else {
      lines.push(
        `| ${packSounds}-sound pack (${mb} MB) served to curl: wall throughput | skipped: \`zip\` is not installed | ${oursRate.toFixed(0)} MB/s | – | ≥ 80% |`,
        `| the zip stream alone, read in process (no HTTP): wall | skipped | ${directRate.toFixed(0)} MB/s | – | |`,
      );
      process.stderr.write(
        'download bench: `zip` is missing (apt-get install zip): the floor rows are skipped\n',
      );
    }
    lines.push(
      `| first byte of a ${bigSounds}-sound pack | – | ${median(first).toFixed(1)} ms (max ${Math.max(...first).toFixed(1)}) | – | ≤ 100 ms |`,
      `| server memory growth while streaming ${small.files.length} sounds (${(small.bytes / MB).toFixed(0)} MB) | – | ${(smallRun.rssGrowth / MB).toFixed(1)} MB | – | constant |`,
      `| server memory growth while streaming ${packSounds} sounds (${mb} MB) | – | ${(median(ours.map((d) => d.rssGrowth)) / MB).toFixed(1)} MB | – | constant |`,
      '',
      'Memory growth is the peak resident size of the server process during the download over its size just before it (after a warm-up download).',
      '',
    );
  } finally {
    await server.close();
    await deps.dispose();
  }
} finally {
  await catalogue.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
const table = lines.join('\n');
process.stdout.write(`${table}\n`);
fs.writeFileSync(resultsFile, table);
