// Upload benchmark (issue 15): `POST /apiv2/sounds/upload/` of large WAV files against a bare
// node:http handler that copies the same request bytes to the same data folder (the floor), the
// upload server's peak memory growth per upload, and the wall time from upload to "pending
// moderation" of a 66-second stereo music file with one in-process worker, stage by stage.
// `npx earshot bench upload [--sizes 50,200] [--runs 15] [--music-runs 5] [--poll-ms 250] [--no-music | --music-only]`.
// Results: benchmarks/results/upload.md. `--no-music` skips the 66-second row (the pipeline's) and
// keeps that section of the results file; `--music-only` runs only that row and keeps the upload
// speed section. Each of the row's runs starts a server of its own and uploads the file twice: the
// first sound after the start, then the second (a running server's).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { bearerGrant } from '@earshot/api/testing';
import { openCatalogue } from '@earshot/catalogue';
import { createLogger } from '@earshot/common';
import { fixture } from '@earshot/fixtures';
import { arg } from './args.ts';
import { processStats, processTree, startChild, startEarshot } from './processes.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const resultsFile = path.join(here, '..', 'results', 'upload.md');

/** A WAV of `seconds` of the 60-second stereo music fixture (looped), its last byte set to `tag`. */
function musicWav(file: string, seconds: number, tag: number): number {
  const source = fs.readFileSync(fixture('music-mix-60s'));
  const dataAt = source.indexOf('data') + 8;
  const header = Buffer.from(source.subarray(0, dataAt));
  const pcm = source.subarray(dataAt);
  const rate = header.readUInt32LE(28); // byte rate
  const want = Math.floor((seconds * rate) / 4) * 4;
  header.writeUInt32LE(want, dataAt - 4);
  header.writeUInt32LE(want + dataAt - 8, 4);
  const fd = fs.openSync(file, 'w');
  fs.writeSync(fd, header);
  for (let left = want; left > 0; ) {
    const part = pcm.subarray(0, Math.min(left, pcm.length));
    fs.writeSync(fd, part);
    left -= part.length;
  }
  fs.writeSync(fd, Buffer.from([tag & 0xff]), 0, 1, dataAt + want - 1);
  fs.closeSync(fd);
  return header.length + want;
}

/** POSTs `file` as multipart `audiofile` (plus fields), streamed from disk; resolves with status, body and seconds. */
function postMultipart(
  url: string,
  file: string,
  auth: string | undefined,
  fields: Record<string, string> = {},
): Promise<{ status: number; body: string; seconds: number }> {
  const boundary = `----earshot${randomBytes(8).toString('hex')}`;
  const text = Object.entries(fields)
    .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
    .join('');
  const head = Buffer.from(
    `${text}--${boundary}\r\nContent-Disposition: form-data; name="audiofile"; filename="${path.basename(file)}"\r\nContent-Type: audio/wav\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const length = head.length + fs.statSync(file).size + tail.length;
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST',
      headers: {
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        'Content-Length': String(length),
        ...(auth ? { Authorization: auth } : {}),
      },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let body = '';
      res.on('data', (d: Buffer) => {
        body += d.toString();
      });
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body,
          seconds: Number(process.hrtime.bigint() - started) / 1e9,
        }),
      );
    });
    req.write(head);
    const stream = fs.createReadStream(file, { highWaterMark: 1 << 20 });
    stream.on('error', reject);
    stream.on('end', () => req.end(tail));
    stream.pipe(req, { end: false });
  });
}

const clockTicks = Number(spawnSync('getconf', ['CLK_TCK']).stdout?.toString().trim()) || 100;

/**
 * CPU ms a process (all its threads) has used so far, from /proc; with `children`, also that of its
 * finished children (the pipeline's ffmpeg and ffprobe).
 */
function cpuOf(pid: number, children = false): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime, stime, cutime, cstime are fields 14–17 of stat(5); fields[0] here is field 3.
  const own = Number(fields[11]) + Number(fields[12]);
  const waited = children ? Number(fields[13]) + Number(fields[14]) : 0;
  return ((own + waited) * 1000) / clockTicks;
}

/** Samples a process's RSS every 5 ms while `work` runs; returns its result and the peak. */
async function withPeakRss<T>(
  pid: number,
  work: () => Promise<T>,
): Promise<{ result: T; before: number; peak: number }> {
  const before = processStats(pid).rss;
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, processStats(pid).rss);
  }, 5);
  try {
    const result = await work();
    peak = Math.max(peak, processStats(pid).rss);
    return { result, before, peak };
  } finally {
    clearInterval(timer);
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const mb = (bytes: number) => bytes / 1024 ** 2;
const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;
const loads = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
const progress = (line: string) => process.stderr.write(`${line}\n`);

/**
 * Where a server's CPU goes while `work` runs: its threads (scheduler counters, ns) and the
 * processes below it (ffmpeg, ffprobe, the spawn helper; /proc stat ticks), sampled every 20 ms
 * so that children are seen before they are reaped. A thread that ends between two samples loses
 * at most its last 20 ms; what the process's own counter has beyond the threads seen is reported
 * as threads that ended.
 */
class CpuSampler {
  private readonly threads = new Map<number, { first: number; last: number; before: boolean }>();
  private readonly children = new Map<number, { label: string; ms: number }>();
  private readonly ownStart: number;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly pid: number) {
    this.ownStart = cpuOf(pid);
    this.sample(true);
    this.timer = setInterval(() => this.sample(false), 20);
  }

  private sample(before: boolean): void {
    let tasks: string[] = [];
    try {
      tasks = fs.readdirSync(`/proc/${this.pid}/task`);
    } catch {
      return;
    }
    for (const task of tasks) {
      try {
        const ns = Number(fs.readFileSync(`/proc/${this.pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
        const seen = this.threads.get(Number(task));
        if (seen) seen.last = ns;
        else this.threads.set(Number(task), { first: before ? ns : 0, last: ns, before });
      } catch {
        // ended between the listing and the read
      }
    }
    for (const child of processTree(this.pid).slice(1)) {
      try {
        const argv = fs.readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0').filter(Boolean);
        const ms = cpuOf(child);
        const known = this.children.get(child);
        // An exited child not reaped yet has no command line left: it keeps the label it had.
        this.children.set(child, { label: argv.length || !known ? childLabel(argv) : known.label, ms });
      } catch {
        // exited between the listing and the read
      }
    }
  }

  /** CPU seconds by where they went, largest first. */
  stop(): { label: string; seconds: number }[] {
    clearInterval(this.timer);
    this.sample(false);
    const rows = new Map<string, number>();
    const add = (label: string, seconds: number) => rows.set(label, (rows.get(label) ?? 0) + seconds);
    let threadsSeen = 0;
    for (const [tid, t] of this.threads) {
      const seconds = (t.last - t.first) / 1e9;
      threadsSeen += seconds;
      if (tid === this.pid) add('server: event loop (main thread)', seconds);
      else if (t.before)
        add('server: threads it had before the upload (V8 helpers, libuv pool, libvips…)', seconds);
      else add('server: threads started during it (still alive at the end)', seconds);
    }
    const ended = (cpuOf(this.pid) - this.ownStart) / 1000 - threadsSeen;
    if (ended > 0.01) add('server: threads that ended during it', ended);
    for (const child of this.children.values()) add(child.label, child.ms / 1000);
    return [...rows]
      .map(([label, seconds]) => ({ label, seconds }))
      .filter((r) => r.seconds >= 0.005)
      .sort((a, b) => b.seconds - a.seconds);
  }
}

/** What a child process of the server is, from its command line. */
function childLabel(argv: string[]): string {
  const line = argv.join(' ');
  const bin = path.basename(argv.find((a) => /(^|\/)(ffmpeg|ffprobe|node)$/.test(a)) ?? argv[0] ?? '?');
  if (bin === 'node')
    return line.includes(' -e ') ? 'spawn helper (node)' : `node ${argv.slice(1, 3).join(' ')}`;
  if (line.includes('-version')) return `${bin} -version (binary check)`;
  if (bin === 'ffprobe') return 'ffprobe';
  if (line.includes('aselect=')) return 'ffmpeg: Vorbis calibration trials';
  if (line.includes('libvorbis') && line.includes('pipe:0'))
    return 'ffmpeg: the first Vorbis preview (fed by the mp3 one)';
  if (line.includes('libvorbis') && !line.includes('libmp3lame'))
    return 'ffmpeg: the other Vorbis preview (its own decode)';
  if (line.includes('libmp3lame')) return 'ffmpeg: decode, mp3 previews, audio relayed to the Vorbis one';
  if (line.includes('libvorbis')) return 'ffmpeg: previews';
  if (line.includes('pan=mono')) return 'ffmpeg: mono decode (images, peaks, analysis)';
  if (line.includes('pcm_f32le')) return 'ffmpeg: channel decode (loudness)';
  return `${bin}: ${line.slice(0, 80)}`;
}

interface MusicRun {
  at: string;
  load: number[];
  wall: number;
  cpu: number;
  stages: { stage: string; wall: number; cpu: number }[];
  cpuBy: { label: string; seconds: number }[];
}

/** Upload → pending moderation of a 66-second stereo music file, one in-process worker. */
async function musicToModeration(
  catalogue: Awaited<ReturnType<typeof openCatalogue>>,
  origin: string,
  work: string,
  pid: number,
  pollMs: number,
  tag: number,
): Promise<MusicRun> {
  const token = (await bearerGrant(catalogue.db, origin, `bench-music-${tag}`)).accessToken;
  // Each upload its own bytes (the last one differs): no duplicate of an earlier one.
  const music = path.join(work, `music-66s-${tag}.wav`);
  musicWav(music, 66, tag);
  const cpuS = () => cpuOf(pid, true) / 1000;
  const stages: { stage: string; at: number; cpu: number }[] = [];
  const sampler = new CpuSampler(pid);
  const cpuStart = cpuS();
  const started = Date.now();
  const upload = await postMultipart(`${origin}/apiv2/sounds/upload/`, music, `Bearer ${token}`, {
    name: 'Sixty-six seconds',
    bst_category: 'm-m',
    tags: 'music stereo benchmark',
    description: 'A 66-second stereo music file.',
    license: 'Creative Commons 0',
  });
  const uploaded = Date.now();
  const cpuUploaded = cpuS();
  if (upload.status !== 200) throw new Error(`upload: ${upload.status} ${upload.body}`);
  const id = (JSON.parse(upload.body) as { id: number }).id;
  let last = '';
  for (;;) {
    const row = await catalogue.db
      .selectFrom('sounds')
      .select(['processing_state', 'processing_stage', 'moderation_state', 'processing_updated'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    const now = `${row.processing_state}:${row.processing_stage ?? '-'}`;
    if (now !== last) {
      // The server stamps each transition: the poll's own delay is not the server's.
      stages.push({
        stage: now,
        at: Math.max(started, new Date(row.processing_updated).getTime()),
        cpu: cpuS(),
      });
      last = now;
    }
    if (row.processing_state === 'Processed' || row.processing_state === 'Failed') break;
    if (Date.now() - started > 120_000) throw new Error('processing took over 2 minutes');
    await new Promise((r) => setTimeout(r, pollMs));
  }
  const cpuBy = sampler.stop();
  const end = stages[stages.length - 1];
  const run: MusicRun = {
    at: new Date(started).toISOString(),
    load: os.loadavg(),
    wall: (end.at - started) / 1000,
    cpu: end.cpu - cpuStart,
    stages: [
      { stage: 'upload (request)', wall: (uploaded - started) / 1000, cpu: cpuUploaded - cpuStart },
      ...stages.slice(0, -1).map((s, i) => ({
        stage: s.stage,
        wall: (stages[i + 1].at - s.at) / 1000,
        cpu: stages[i + 1].cpu - s.cpu,
      })),
    ],
    cpuBy,
  };
  process.stdout.write(
    `66 s stereo: ${run.wall.toFixed(2)} s to pending moderation (${end.stage}), ${run.cpu.toFixed(2)} CPU-s\n${run.stages
      .map((s) => `  ${s.stage}: ${s.wall.toFixed(2)} s, ${s.cpu.toFixed(2)} CPU-s`)
      .join('\n')}\n${cpuBy.map((c) => `  ${c.seconds.toFixed(2)} CPU-s  ${c.label}`).join('\n')}\n`,
  );
  return run;
}

const quartiles = (xs: number[]) =>
  [0.25, 0.5, 0.75].map((q) => {
    const s = [...xs].sort((a, b) => a - b);
    const at = (s.length - 1) * q;
    const lo = Math.floor(at);
    return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (at - lo);
  });

/** The results file's section of the 66-second row: the runs of a running server and those of the first sound after a start. */
function musicSection(
  sets: { title: string; runs: MusicRun[] }[],
  command: string,
  loadAtStart: number[],
  pollMs: number,
): string[] {
  const all = sets.flatMap((set) => set.runs).sort((a, b) => a.at.localeCompare(b.at));
  return [
    '## 66-second stereo music: upload to pending moderation',
    '',
    `Command: \`${command}\`. Run ${all[0].at} to ${all[all.length - 1].at}, load average ${loads(loadAtStart)} at the start, ${loads(os.loadavg())} at the end.`,
    '',
    `Uploads with their description to \`earshot serve\` (the compiled bin, as \`npm start\` runs it: one in-process worker, WORKER_CONCURRENCY=1, embedded catalogue; a fresh server and data folder for each run, which takes two uploads of the file, each with its own bytes: the first sound after the start, then the second), then the sound's processing state read from the catalogue every ${pollMs} ms; the end is the moment the server recorded with the state (\`processing_updated\`), so the poll's interval adds nothing to the wall time. CPU = the server process (all threads) and its finished ffmpeg/ffprobe children, from /proc, from the start of the request to the poll that saw the end. A running server has analysed sounds before (its code is compiled and optimised); the first sound after a start also pays for that.`,
    '',
    ...sets.flatMap((set) => musicSet(set.title, set.runs)),
  ];
}

function musicSet(title: string, runs: MusicRun[]): string[] {
  const cores = os.cpus().length;
  const [wallQ1, wall, wallQ3] = quartiles(runs.map((r) => r.wall));
  const [cpuQ1, cpu, cpuQ3] = quartiles(runs.map((r) => r.cpu));
  const many = runs.length > 1;
  // The run whose wall time is the median's (the lower middle one of an even count): its stages.
  const typical = [...runs].sort((a, b) => a.wall - b.wall)[Math.floor((runs.length - 1) / 2)];
  const lines = [
    `### ${title}`,
    '',
    `**${wall.toFixed(2)} s** from the start of the request to pending moderation${many ? `, median of ${runs.length} runs (quartiles ${wallQ1.toFixed(2)}–${wallQ3.toFixed(2)} s);` : ';'} target ≤ 5 s ${wall <= 5 ? '✓' : '✗'}.`,
    '',
    `The sound's work took **${cpu.toFixed(2)} CPU-s**${many ? ` (median; quartiles ${cpuQ1.toFixed(2)}–${cpuQ3.toFixed(2)})` : ''}, so it needs at least ${(cpu / cores).toFixed(2)} s of wall on ${cores} free cores; ${many ? 'the runs got' : 'this run got'} ${(cpu / wall).toFixed(2)} cores on average (fewer than ${cores}: waiting for other processes on the machine, or one part of the work for another).`,
    '',
  ];
  if (many) {
    lines.push(
      '| run (start, UTC) | load (1 min) | wall s | CPU s |',
      '|---|---:|---:|---:|',
      ...runs.map(
        (r) =>
          `| ${r.at.slice(11, 19)} | ${r.load[0].toFixed(2)} | ${r.wall.toFixed(2)} | ${r.cpu.toFixed(2)} |`,
      ),
      '',
      `Stages of the run with the median wall time (${typical.at.slice(11, 19)}):`,
      '',
    );
  }
  lines.push(
    '| stage (state:stage as recorded) | wall s | server CPU s (with its ffmpeg) |',
    '|---|---:|---:|',
    ...typical.stages.map((s) => `| ${s.stage} | ${s.wall.toFixed(2)} | ${s.cpu.toFixed(2)} |`),
    '| Processed:handover (pending moderation) | — | — |',
    `| **total** | **${typical.wall.toFixed(2)}** | **${typical.cpu.toFixed(2)}** |`,
    '',
    `Where that CPU went${many ? ' (median over the runs of each line)' : ''}: the server's threads from their scheduler counters and the processes below it from /proc, sampled every 20 ms from the start of the request to the end. The spawn helper and the ffprobe it starts are not in the total above, which counts only the children the server itself has reaped.`,
    '',
    '| where | CPU s |',
    '|---|---:|',
  );
  const labels = [...new Set(runs.flatMap((r) => r.cpuBy.map((c) => c.label)))];
  const byLabel = labels
    .map((label) => ({
      label,
      seconds: quartiles(runs.map((r) => r.cpuBy.find((c) => c.label === label)?.seconds ?? 0))[1],
    }))
    .sort((a, b) => b.seconds - a.seconds);
  lines.push(...byLabel.map((c) => `| ${c.label} | ${c.seconds.toFixed(2)} |`), '');
  return lines;
}

/** The results file up to its 66-second section (what a `--music-only` run keeps). */
function keptSpeedSection(): string {
  const text = fs.existsSync(resultsFile) ? fs.readFileSync(resultsFile, 'utf8') : '# Upload benchmark\n\n';
  const at = text.indexOf('## 66-second stereo music');
  return at >= 0 ? text.slice(0, at) : `${text.trimEnd()}\n\n`;
}

/** What follows the 66-second section (hand-written notes): a `--music-only` run keeps it too. */
function keptAfterMusic(): string {
  const text = fs.existsSync(resultsFile) ? fs.readFileSync(resultsFile, 'utf8') : '';
  const at = text.indexOf('## 66-second stereo music');
  const next = at < 0 ? -1 : text.indexOf('\n## ', at + 3);
  return next < 0 ? '' : `\n${text.slice(next + 1)}`;
}

const NOT_MEASURED = '_Not measured by the run above (`--no-music`): kept from the run recorded before it._';

/**
 * The 66-second section of the results file as it stands and everything after it (notes, dated
 * sections): what a run with `--no-music` keeps, marked once as not measured by it.
 */
function keptMusicSection(): string[] {
  const text = fs.existsSync(resultsFile) ? fs.readFileSync(resultsFile, 'utf8') : '';
  const at = text.indexOf('## 66-second stereo music');
  if (at < 0) return [];
  const section = text.slice(at).trimEnd().split('\n');
  const marked = section.slice(1, 4).includes(NOT_MEASURED);
  return [section[0], ...(marked ? [] : ['', NOT_MEASURED]), ...section.slice(1), ''];
}

interface Servers {
  work: string;
  dataDir: string;
  serve: Awaited<ReturnType<typeof startEarshot>>;
  origin: string;
  /** The floor: a bare node:http server (only when asked for). */
  bare?: Awaited<ReturnType<typeof startChild>>;
  catalogue: Awaited<ReturnType<typeof openCatalogue>>;
}

/**
 * `earshot serve` as `npm start` runs it (the compiled bin: API, embedded catalogue, one in-process
 * worker) on a fresh data folder, optionally the floor beside it, and the catalogue opened here;
 * all stopped and removed after `work`.
 */
async function withServers<T>(bare: boolean, work: (servers: Servers) => Promise<T>): Promise<T> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-bench-upload-'));
  const dataDir = path.join(dir, 'data');
  fs.mkdirSync(path.join(dataDir, 'bare'), { recursive: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: '0',
    DEMO_IMPORT: 'false',
    OAUTH2_HTTPS_ONLY: 'false',
    LOG_LEVEL: 'warn',
    WORKER_CONCURRENCY: '1',
  };
  delete env.REDIS_URL;
  delete env.DATABASE_URL;
  // UPLOAD_BENCH_NODE_FLAGS: node flags for the servers (e.g. --cpu-prof --cpu-prof-dir=…, --trace-gc).
  const nodeFlags = process.env.UPLOAD_BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
  const serve = await startEarshot(['serve'], env, /is serving on (http:\/\/\S+)/, nodeFlags);
  const floor = bare
    ? await startChild(
        [fileURLToPath(import.meta.url), '--bare', '--dir', path.join(dataDir, 'bare')],
        env,
        /bare on (\d+)/,
        nodeFlags,
      )
    : undefined;
  const catalogue = await openCatalogue({
    config: { dataDir },
    logger: createLogger('silent'),
    role: 'command',
    description: 'upload bench',
  });
  try {
    return await work({ work: dir, dataDir, serve, origin: serve.match[1], bare: floor, catalogue });
  } finally {
    await catalogue.close();
    floor?.child.kill('SIGTERM');
    serve.child.kill('SIGTERM');
    await new Promise((r) => serve.child.once('exit', r));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Upload speed and memory against the floor, audiofile only (pending description: no processing runs). */
async function speedRows(servers: Servers, sizes: number[], runs: number) {
  const { work, dataDir, serve, origin, catalogue } = servers;
  const bare = servers.bare as NonNullable<Servers['bare']>;
  const bareUrl = `http://127.0.0.1:${bare.match[1]}/`;
  const rows: string[] = [];
  const cpuRows: string[] = [];
  let tag = 0;
  for (const size of sizes) {
    const seconds = (size * 1024 ** 2) / (44100 * 4);
    const token = (await bearerGrant(catalogue.db, origin, `bench${size}`)).accessToken;
    const earshot: number[] = [];
    const floor: number[] = [];
    const earshotCpu: number[] = [];
    const floorCpu: number[] = [];
    const ratios: number[] = [];
    const clientCpu: { earshot: number[]; floor: number[] } = { earshot: [], floor: [] };
    let growth = 0;
    let bytes = 0;
    for (let i = 0; i <= runs; i++) {
      const file = path.join(work, `take-${size}.wav`);
      bytes = musicWav(file, seconds, ++tag);
      // Each upload starts with no dirty pages (the take just written, earlier runs' files), so
      // that neither pays for writing back the other's bytes; the order alternates between runs
      // so that neither always follows the other.
      const floorRun = async () => {
        spawnSync('sync');
        const cpu0 = cpuOf(bare.child.pid as number);
        const client0 = process.cpuUsage();
        // Sampled like the upload below, so that both runs carry the sampler's own cost.
        const { result } = await withPeakRss(bare.child.pid as number, () =>
          postMultipart(bareUrl, file, undefined),
        );
        const client = cpuMs(process.cpuUsage(client0));
        if (result.status !== 200) throw new Error(`bare: ${result.status} ${result.body}`);
        return { ...result, cpu: cpuOf(bare.child.pid as number) - cpu0, client };
      };
      const earshotRun = async () => {
        spawnSync('sync');
        const cpu0 = cpuOf(serve.child.pid as number);
        const client0 = process.cpuUsage();
        const sampled = await withPeakRss(serve.child.pid as number, () =>
          postMultipart(`${origin}/apiv2/sounds/upload/`, file, `Bearer ${token}`),
        );
        const client = cpuMs(process.cpuUsage(client0));
        const { result } = sampled;
        if (result.status !== 200) throw new Error(`upload: ${result.status} ${result.body}`);
        return {
          ...result,
          cpu: cpuOf(serve.child.pid as number) - cpu0,
          client,
          growth: sampled.peak - sampled.before,
        };
      };
      const floorFirst = i % 2 === 0;
      const b = floorFirst ? await floorRun() : undefined;
      const e = await earshotRun();
      const floorTake = b ?? (await floorRun());
      if (i === 0) continue; // warm-up
      earshot.push(e.seconds);
      floor.push(floorTake.seconds);
      ratios.push(floorTake.seconds / e.seconds);
      earshotCpu.push(e.cpu);
      floorCpu.push(floorTake.cpu);
      clientCpu.earshot.push(e.client);
      clientCpu.floor.push(floorTake.client);
      growth = Math.max(growth, e.growth);
      progress(
        `  run ${i}/${runs}: earshot ${(e.seconds * 1000).toFixed(0)} ms, floor ${(floorTake.seconds * 1000).toFixed(0)} ms (${((floorTake.seconds / e.seconds) * 100).toFixed(0)} %)`,
      );
      // Both copies go, so that neither server's next write lands on memory the machine has never
      // used: on this virtual machine, writing 50 MB into page cache on such memory took 90–130 ms
      // of kernel time against 8 ms on memory freed a moment ago. The floor's copies were removed
      // and earshot's, kept as pending uploads, were not, which made later earshot runs slow on a
      // fresh machine. The pending rows stay; nothing in the benchmark reads them.
      fs.rmSync(path.join(dataDir, 'bare'), { recursive: true, force: true });
      fs.rmSync(path.join(dataDir, 'uploads', 'pending'), { recursive: true, force: true });
      fs.mkdirSync(path.join(dataDir, 'bare'));
    }
    const ratio = median(ratios);
    const met = ratios.filter((r) => r >= 0.8).length;
    rows.push(
      `| ${mb(bytes).toFixed(0)} MB WAV | ${runs} | ${(mb(bytes) / median(earshot)).toFixed(0)} MB/s (${(median(earshot) * 1000).toFixed(0)} ms) | ${(mb(bytes) / median(floor)).toFixed(0)} MB/s (${(median(floor) * 1000).toFixed(0)} ms) | **${(ratio * 100).toFixed(0)} %** ${ratio >= 0.8 ? '✓' : '✗'} (${met} of ${runs} runs ≥ 80 %; ratio of the medians ${((median(floor) / median(earshot)) * 100).toFixed(0)} %) | **${mb(growth).toFixed(1)} MB** ${mb(growth) <= 32 ? '✓' : '✗'} |`,
    );
    const perMb = (ms: number) => `${(ms / mb(bytes)).toFixed(2)} ms/MB (${ms.toFixed(0)} ms)`;
    cpuRows.push(
      `| ${mb(bytes).toFixed(0)} MB WAV | ${perMb(median(earshotCpu))} | ${perMb(median(floorCpu))} | ${((median(floorCpu) / median(earshotCpu)) * 100).toFixed(0)} % | ${median(clientCpu.earshot).toFixed(0)} / ${median(clientCpu.floor).toFixed(0)} ms |`,
    );
    process.stdout.write(`${rows[rows.length - 1]}\n${cpuRows[cpuRows.length - 1]}\n`);
  }
  return { rows, cpuRows };
}

async function main(): Promise<void> {
  const musicOnly = process.argv.includes('--music-only');
  const noMusic = process.argv.includes('--no-music');
  const sizes = musicOnly ? [] : arg('sizes', '50,200').split(',').map(Number);
  const runs = Number(arg('runs', '15'));
  const musicRuns = Number(arg('music-runs', '5'));
  const pollMs = Number(arg('poll-ms', '250'));
  const loadAtStart = os.loadavg();
  const { rows, cpuRows } = musicOnly
    ? { rows: [], cpuRows: [] }
    : await withServers(true, (servers) => speedRows(servers, sizes, runs));

  // Upload → pending moderation of a 66-second stereo music file, one in-process worker; each run
  // with a server started for it: the first sound after `npm start`, then a second one.
  const musicLoad = os.loadavg();
  const first: MusicRun[] = [];
  const running: MusicRun[] = [];
  for (let r = 0; r < (noMusic ? 0 : musicRuns); r++) {
    await withServers(false, async (s) => {
      const upload = (tag: number) =>
        musicToModeration(s.catalogue, s.origin, s.work, s.serve.child.pid as number, pollMs, tag);
      progress(`66-second row: run ${r + 1}/${musicRuns}, the first sound after the start`);
      first.push(await upload(0x5a));
      progress(`66-second row: run ${r + 1}/${musicRuns}, the second sound`);
      running.push(await upload(0x5b));
    });
  }
  const music = [
    { title: 'A running server (the second sound after its start)', runs: running },
    { title: 'The first sound after a start', runs: first },
  ];
  const command = `npx earshot bench upload ${musicOnly ? '--music-only ' : ''}--music-runs ${musicRuns}`;
  const musicLines = noMusic ? keptMusicSection() : musicSection(music, command, musicLoad, pollMs);
  if (musicOnly) {
    fs.writeFileSync(resultsFile, `${keptSpeedSection()}${musicLines.join('\n')}${keptAfterMusic()}`);
    process.stdout.write(`written ${path.relative(process.cwd(), resultsFile)} (66-second section)\n`);
    return;
  }
  const lines = [
    '# Upload benchmark',
    '',
    `Command: \`npx earshot bench upload --sizes ${sizes.join(',')} --runs ${runs}${noMusic ? ' --no-music' : ` --music-runs ${musicRuns}`}\``,
    '',
    `Run ${new Date().toISOString()}: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, load average ${loads(loadAtStart)} at the start, ${loads(os.loadavg())} at the end (the machine is shared; ratios within the run are what counts).`,
    '',
    '## Upload speed and memory',
    '',
    "Both servers are child processes of the benchmark and write to the same data folder; the client (this process) streams the same multipart body from disk to each in turn, the order alternating between runs, each upload after a `sync` (so that none pays for writing back earlier bytes) and both copies removed after each run (so that neither writes into memory the machine has never used, which costs over ten times the kernel time here); one warm-up run, then the medians of the runs. Speed vs floor is the median of the runs' ratios (floor time / earshot time of the same run). **earshot** = `earshot serve`: `POST /apiv2/sounds/upload/` with a Bearer token, `audiofile` only (auth, rate limit, busboy streaming to `uploads/incoming`, counted on the way, the file judged from its header while it streams in (ffprobe for what a header does not settle), the duplicate check by size (the file is hashed before answering only when an original of its size exists; none does here), rename into `uploads/pending`, the pending row), answered after all of it. **floor** = a bare `node:http` handler piping the request body to a file in the same folder. Memory growth = the server process's peak resident memory during an upload (sampled every 5 ms from /proc) minus its resident memory just before, largest of the runs.",
    '',
    '| file | runs | earshot upload | floor: bare node:http copy | speed vs floor (≥ 80 %), median of the runs | peak memory growth (≤ 32 MB) |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    'CPU time of each server process during its uploads (all its threads, from /proc; 10 ms ticks), median: less disturbed by a busy machine than wall time. Client = this process sending the body (the same work for both servers), measured by `process.cpuUsage()`.',
    '',
    '| file | earshot server CPU | floor server CPU | floor / earshot | client CPU (to earshot / to floor) |',
    '|---|---:|---:|---:|---:|',
    ...cpuRows,
    '',
    ...musicLines,
    ...(noMusic ? [] : [keptAfterMusic()]),
  ];
  fs.writeFileSync(resultsFile, lines.join('\n'));
  process.stdout.write(`written ${path.relative(process.cwd(), resultsFile)}\n`);
}

// Child mode: the floor, a bare node:http server streaming each request body to a file.
if (process.argv.includes('--bare')) {
  const dir = arg('dir', os.tmpdir());
  const server = http.createServer((req, res) => {
    const file = path.join(dir, `${randomBytes(8).toString('hex')}.partial`);
    pipeline(req, fs.createWriteStream(file)).then(
      () => res.end('{"detail":"stored"}'),
      () => res.destroy(),
    );
  });
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`bare on ${(server.address() as AddressInfo).port}\n`);
  });
} else {
  await main();
}
