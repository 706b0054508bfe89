// Search by example benchmark (issue 21): content search with an `audio_file` (a 10-second clip,
// analyzed during the request) over the API benchmark's catalogue (earshot_api_bench_<n>, seeded
// on first use, reused after), with 10 concurrent clients, while other requests keep coming at a
// fixed rate. The floor is the clip's analysis alone (the lean one the request runs: only what
// the default space reads), in this process, one at a time; the whole
// analysis is timed beside it for comparison. The server's /metrics, read around the 10-client
// row, tells where a request's time went (clip-stages.ts).
//   npx earshot bench example [--sounds 100000] [--duration 6] [--clients 10] [--rate 100]
//     [--clip-threads n] [--clip-niceness n] [--rounds 3] [--reseed]
// The other requests are timed alone and beside the clips in alternating rounds (median of the
// rounds' p99s: one 6 s row's p99 is its 6th-worst request, which one hiccup of a shared machine
// moves), and the server's event-loop delay and GC pauses are read for each row (loop-monitor.ts).

import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import {
  analyzeClip,
  CLIP_FRAME_STRIDE,
  clipAnalysisNeeds,
  decodeClipInProcess,
  decodeMono,
  probeFile,
} from '@earshot/core';
import { fixture } from '@earshot/fixtures';
import autocannon from 'autocannon';
import { apiBenchDatabase, ensureApiBenchCatalogue, runApiBenchServer } from './api-bench-catalogue.ts';
import { arg } from './args.ts';
import { runClipClients } from './clip-clients.ts';
import { readClipStages, stageTable } from './clip-stages.ts';
import { cpuSplit, cpuTable as cpuSplitTable, readCpu } from './cpu-split.ts';
import { installLoopMonitor, LoopMonitor, type LoopReading, readLoop } from './loop-monitor.ts';

const sounds = Number(arg('sounds', '100000'));
const duration = Number(arg('duration', '6'));
const clients = Number(arg('clients', '10'));
/** Requests per second of the other traffic (sound instance, text search, similar sounds). */
const rate = Number(arg('rate', '100'));
const role = arg('role', 'main');
/** Alternating rounds of the other requests alone and beside the clips. */
const rounds = Number(arg('rounds', '3'));
/** The API server's clip analysis threads (default: the server's own default, one on two cores). */
const clipThreads = arg('clip-threads', '');
/** Nice steps the clip threads run below the server's event loop (default: the server's own). */
const clipNiceness = arg('clip-niceness', '');
const { dbName, dbUrl } = apiBenchDatabase(sounds);
const here = path.dirname(fileURLToPath(import.meta.url));
const resultsFile = path.join(here, '..', 'results', 'example.md');
const work = '/tmp/earshot-example-bench';

// ---------------------------------------------------------------- child: the API server

function spawnApiServer() {
  const child = spawn(
    process.execPath,
    [
      ...[
        '--import',
        'tsx',
        fileURLToPath(import.meta.url),
        '--role',
        'api-server',
        '--sounds',
        String(sounds),
      ],
      ...(clipThreads ? ['--clip-threads', clipThreads] : []),
      ...(clipNiceness ? ['--clip-niceness', clipNiceness] : []),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const lines = readline.createInterface({ input: child.stdout });
  const origin = new Promise<string>((resolve, reject) => {
    lines.once('line', (line) => resolve((JSON.parse(line) as { origin: string }).origin));
    child.once('exit', (code) => reject(new Error(`api server exited with ${code}`)));
  });
  return { child, origin, lines };
}

// ---------------------------------------------------------------- measuring
interface Row {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  failed: number;
  target: string;
  verdict: string;
}

function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** `clients` loops posting the clip for `seconds` (in a thread of their own); latencies (ms) and failures. */
async function clipLoad(origin: string, key: string, clip: Buffer, n: number, seconds: number) {
  const { latencies, failed } = await runClipClients({ origin, key, clip, clients: n, seconds });
  return { ...clipSummary(latencies, seconds), failed };
}

function clipSummary(latencies: number[], seconds: number) {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    mean: sorted.reduce((a, b) => a + b, 0) / sorted.length,
    rps: sorted.length / seconds,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
  };
}

const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

/** The other traffic at a fixed overall rate (not closed-loop: its latency is what clients see). */
async function otherLoad(origin: string, key: string, seconds: number) {
  const ids = [1, 17, 503, 4242, 31337, 77777].filter((id) => id <= sounds);
  const paths = [
    ...ids.map((id) => `/apiv2/sounds/${id}/`),
    '/apiv2/search/?query=dog&fields=id,name,username',
    ...ids.map((id) => `/apiv2/sounds/${id}/similar/?fields=id,name,score`),
  ];
  const result = await autocannon({
    url: origin,
    connections: 10,
    overallRate: rate,
    duration: seconds,
    headers: { Authorization: `Token ${key}` },
    requests: paths.map((p) => ({ method: 'GET' as const, path: p })),
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failed: result.errors + result.timeouts + result.non2xx,
  };
}

function makeClip(seconds: number, name: string): Buffer {
  const file = path.join(work, name);
  execFileSync('ffmpeg', [
    ...['-v', 'error', '-y', '-stream_loop', '-1', '-i', fixture('music-mix-60s'), '-t', String(seconds)],
    ...['-c:a', 'libmp3lame', '-b:a', '128k', file],
  ]);
  return fs.readFileSync(file);
}

const clockTicks = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** CPU ms of this process and of its children that have ended (ffprobe, ffmpeg), from /proc. */
function cpuMs(): number {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000 + ((Number(fields[13]) + Number(fields[14])) * 1000) / clockTicks;
}

/** Mean CPU ms (children included) of `runs` calls, after one unmeasured call. */
async function cpuPerCall(runs: number, call: () => Promise<unknown>): Promise<number> {
  await call();
  const start = cpuMs();
  for (let i = 0; i < runs; i++) await call();
  return (cpuMs() - start) / runs;
}

/**
 * Where a clip's CPU goes, in this process, one call at a time: the in-process decode the request
 * runs, the ffprobe + ffmpeg decode it replaced (still the fallback for other formats), and the
 * whole clip path with the lean analysis. CPU, not wall time: the machine is shared.
 */
async function cpuBreakdown(clipFile: string, needs: string[]) {
  const runs = 7;
  const inProcess = await cpuPerCall(runs, () =>
    decodeClipInProcess(clipFile, { sampleRate: 44_100, maxSeconds: 30 }),
  );
  const ffmpeg = await cpuPerCall(runs, async () => {
    const probe = await probeFile(clipFile, { md5: false });
    return decodeMono(clipFile, { probe, maxSeconds: 30 });
  });
  const clip = await cpuPerCall(runs, () => analyzeClip(clipFile, { needs }));
  const everyFrame = await cpuPerCall(runs, () => analyzeClip(clipFile, { needs, frameStride: 1 }));
  return [
    '| step (10 s mp3 clip, 44.1 kHz stereo) | CPU ms per clip (mean of 7, children included) |',
    '|---|---:|',
    `| decode in-process (the thread's reused mpg123 WebAssembly, mixed from its memory), what the request runs | ${inProcess.toFixed(0)} |`,
    `| decode by ffprobe + ffmpeg (the previous path, now the fallback) | ${ffmpeg.toFixed(0)} |`,
    `| lean analysis (space inputs, float32 FFTs), costly series on every ${CLIP_FRAME_STRIDE}th frame (clip path less its decode), what the request runs | ${(clip - inProcess).toFixed(0)} |`,
    `| lean analysis on every frame (frameStride 1, float32 FFTs) | ${(everyFrame - inProcess).toFixed(0)} |`,
    `| whole clip path (analyzeClip, lean) | ${clip.toFixed(0)} |`,
    '| budget: 10 closed-loop clients at p50 ≤ 400 ms need 25 clips/s: ≤ 40 ms per clip in one thread, ≤ 80 ms all-in (threads, event loop, clients) on 2 idle cores | ≈ 80 |',
  ].join('\n');
}

const fmt = (ms: number) => (Number.isNaN(ms) ? '—' : ms.toFixed(0));

async function main(): Promise<void> {
  const loadAtStart = os.loadavg();
  fs.mkdirSync(work, { recursive: true });
  console.log(`[1/5] catalogue: ${sounds} sounds in ${dbName}`);
  const key = await ensureApiBenchCatalogue(sounds, process.argv.includes('--reseed'));
  const clip = makeClip(10, 'clip-10s.mp3');
  const long = makeClip(600, 'clip-10min.mp3');

  console.log('[2/5] floor: the 10 s clip analyzed in this process, one at a time');
  const clipFile = path.join(work, 'clip-10s.mp3');
  // What the API asks for an audio_file with no similarity_space named (the default space's inputs).
  const needs = clipAnalysisNeeds();
  // Warm-up: JIT and the ffmpeg binaries in the page cache.
  await analyzeClip(clipFile, { needs });
  await analyzeClip(clipFile);
  const alone: number[] = [];
  const aloneWhole: number[] = [];
  // Measured before and after the load (7 runs each): other work on the machine moves it.
  const measureFloor = async () => {
    for (let i = 0; i < 7; i++) {
      let started = performance.now();
      await analyzeClip(clipFile, { needs });
      alone.push(performance.now() - started);
      started = performance.now();
      await analyzeClip(clipFile);
      aloneWhole.push(performance.now() - started);
    }
  };
  await measureFloor();
  const cpuTable = await cpuBreakdown(clipFile, needs);

  console.log('[3/5] starting the API server (loads the similarity index)…');
  const api = spawnApiServer();
  const origin = await api.origin;
  const rows: Row[] = [];
  let stages = '';
  let cpu = '';
  let loops = '';
  const pid = api.child.pid ?? 0;
  try {
    // Warm-up: the analysis threads start, the other routes' caches and JIT warm.
    await Promise.all([clipLoad(origin, key, clip, 2, 2), otherLoad(origin, key, 2)]);
    console.log(`[4/5] load: ${duration} s per row, ${clients} clip clients, other traffic at ${rate} req/s`);
    const quiet: Array<Awaited<ReturnType<typeof otherLoad>>> = [];
    const busy: Array<Awaited<ReturnType<typeof otherLoad>>> = [];
    const quietLoop: LoopReading[] = [];
    const busyLoop: LoopReading[] = [];
    const clipLatencies: number[] = [];
    let clipFailures = 0;
    let quietSplit: ReturnType<typeof cpuSplit> | undefined;
    let busySplit: ReturnType<typeof cpuSplit> | undefined;
    const stagesBefore = await readClipStages(origin);
    // The load generator's own loop too: a stall there is counted as the server's latency.
    const generator = new LoopMonitor();
    const quietGenerator: LoopReading[] = [];
    const busyGenerator: LoopReading[] = [];
    await readLoop(api.child, api.lines);
    for (let round = 0; round < rounds; round++) {
      // CPU by thread is read in the last round (one alone/beside pair, like-for-like).
      const quietCpu = readCpu(pid);
      quiet.push(await otherLoad(origin, key, duration));
      if (round === rounds - 1) quietSplit = cpuSplit(pid, quietCpu, readCpu(pid));
      quietGenerator.push(generator.read());
      quietLoop.push(await readLoop(api.child, api.lines));
      const busyCpu = readCpu(pid);
      const [clips, other] = await Promise.all([
        runClipClients({ origin, key, clip, clients, seconds: duration }),
        otherLoad(origin, key, duration),
      ]);
      if (round === rounds - 1) busySplit = cpuSplit(pid, busyCpu, readCpu(pid));
      busyGenerator.push(generator.read());
      busyLoop.push(await readLoop(api.child, api.lines));
      busy.push(other);
      clipLatencies.push(...clips.latencies);
      clipFailures += clips.failed;
    }
    const clips = { ...clipSummary(clipLatencies, duration * rounds), failed: clipFailures };
    stages = stageTable(stagesBefore, await readClipStages(origin), clips.mean);
    if (quietSplit && busySplit) cpu = cpuSplitTable(quietSplit, busySplit, clips.rps * duration);
    loops = loopTable(quietLoop, busyLoop, quietGenerator, busyGenerator);
    const others = (list: typeof quiet) => ({
      rps: median(list.map((r) => r.rps)),
      p50: median(list.map((r) => r.p50)),
      p99: median(list.map((r) => r.p99)),
      failed: list.reduce((n, r) => n + r.failed, 0),
    });
    const p99s = (list: typeof quiet) => list.map((r) => r.p99).join(', ');
    rows.push({
      name: `other requests alone (median of ${rounds} rounds; p99s ${p99s(quiet)})`,
      ...others(quiet),
      target: 'baseline',
      verdict: '',
    });
    rows.push({
      name: `audio_file, 10 s clip, ${clients} concurrent clients (${rounds} rounds pooled)`,
      ...clips,
      target: 'p50 ≤ 400 ms, p99 ≤ 800 ms',
      verdict: clips.p50 <= 400 && clips.p99 <= 800 && clips.failed === 0 ? 'met' : 'missed',
    });
    const meanwhile = others(busy);
    const rise = meanwhile.p99 / others(quiet).p99 - 1;
    rows.push({
      name: `other requests meanwhile (median of ${rounds} rounds; p99s ${p99s(busy)}; median p99 ${rise >= 0 ? '+' : ''}${(rise * 100).toFixed(0)} %)`,
      ...meanwhile,
      target: 'p99 rise ≤ 20 %',
      verdict: rise <= 0.2 && meanwhile.failed === 0 ? 'met' : 'missed',
    });
    const single = await clipLoad(origin, key, clip, 1, duration);
    rows.push({ name: 'audio_file, 10 s clip, one client', ...single, target: 'info', verdict: '' });
    const cut = await clipLoad(origin, key, long, 1, duration);
    rows.push({
      name: 'audio_file, 10-minute upload (cut to 30 s), one client',
      ...cut,
      target: 'info',
      verdict: '',
    });
  } finally {
    api.child.kill('SIGTERM');
  }
  await measureFloor();
  alone.sort((a, b) => a - b);
  aloneWhole.sort((a, b) => a - b);
  const floor = percentile(alone, 0.5);
  const whole = percentile(aloneWhole, 0.5);

  console.log('[5/5] results');
  const table = [
    '| scenario | req/s | p50 ms | p99 ms | p50 / floor | failed | target | verdict |',
    '|---|---:|---:|---:|---:|---:|---|---|',
    `| floor: 10 s clip, lean analysis (what the request runs) in-process, one at a time (median of 14, before and after the load) | ${(1000 / floor).toFixed(1)} | ${fmt(floor)} | ${fmt(percentile(alone, 0.99))} | 1.0 | 0 | — | |`,
    `| 10 s clip, whole analysis in-process, one at a time (for comparison) | ${(1000 / whole).toFixed(1)} | ${fmt(whole)} | ${fmt(percentile(aloneWhole, 0.99))} | ${(whole / floor).toFixed(1)} | 0 | info | |`,
    ...rows.map(
      (r) =>
        `| ${r.name} | ${r.rps.toFixed(1)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${r.name.startsWith('audio_file') ? (r.p50 / floor).toFixed(1) : '—'} | ${r.failed} | ${r.target} | ${r.verdict} |`,
    ),
  ].join('\n');
  console.log(table);
  console.log(stages);
  console.log(loops);
  console.log(cpu);
  console.log(cpuTable);
  const command = `npx earshot bench example --sounds ${sounds} --duration ${duration} --clients ${clients} --rate ${rate}${clipThreads ? ` --clip-threads ${clipThreads}` : ''}${clipNiceness ? ` --clip-niceness ${clipNiceness}` : ''} --rounds ${rounds}`;
  const load = (l: number[]) => l.map((x) => x.toFixed(1)).join(' / ');
  const section = `## Run ${new Date().toISOString()}\n\n\`${command}\`: ${sounds} sounds in the PostgreSQL server (the API benchmark's catalogue), the API server in a child process with ${clipThreads || 'its default number of'} clip analysis threads (niceness ${clipNiceness || 'default'}), the clients in this process (clip uploads with fetch in a thread of their own, the other traffic with autocannon at a fixed ${rate} req/s over sound instances, a text search and similar sounds). ${os.cpus().length} cores, load average ${load(loadAtStart)} at the start and ${load(os.loadavg())} at the end (other work shares the machine).\n\n${table}\n\n${stages}\n\n${loops}\n\n${cpu}\n\n${cpuTable}\n`;
  saveSection(section);
  console.log(`written ${path.relative(process.cwd(), resultsFile)}`);
}

/**
 * The server's event loop alone and beside the clips, by round (loop-monitor.ts), and the load
 * generator's (autocannon's thread), whose stalls the other requests' latency would include.
 */
function loopTable(
  quiet: LoopReading[],
  busy: LoopReading[],
  quietGenerator: LoopReading[],
  busyGenerator: LoopReading[],
): string {
  const cells = (r: LoopReading, g: LoopReading) =>
    `${r.delayP99.toFixed(1)} / ${r.delayMax.toFixed(1)} | ${r.gcPauses} / ${r.gcMs.toFixed(0)} / ${r.gcMaxMs.toFixed(1)} | ${g.delayP99.toFixed(1)} / ${g.delayMax.toFixed(1)}`;
  return [
    '| by round | API event loop: delay p99 / max ms | API main-isolate GC pauses: count / total ms / longest ms | load generator loop: delay p99 / max ms |',
    '|---|---:|---:|---:|',
    ...quiet.flatMap((q, i) => [
      `| round ${i + 1}, other requests alone | ${cells(q, quietGenerator[i])} |`,
      `| round ${i + 1}, with the clip clients | ${cells(busy[i], busyGenerator[i])} |`,
    ]),
  ].join('\n');
}

/** Puts a run's section first under the file's title, keeping the earlier runs below it. */
function saveSection(section: string): void {
  const title = '# Search by example benchmark\n\n';
  const old = fs.existsSync(resultsFile) ? fs.readFileSync(resultsFile, 'utf8') : title;
  const firstSection = old.indexOf('\n## ');
  const head = firstSection >= 0 ? old.slice(0, firstSection + 1) : old.endsWith('\n') ? old : `${old}\n`;
  const rest = firstSection >= 0 ? old.slice(firstSection + 1) : '';
  fs.mkdirSync(path.dirname(resultsFile), { recursive: true });
  fs.writeFileSync(resultsFile, `${head}${section}\n${rest}`);
}

if (role === 'api-server') {
  installLoopMonitor();
  await runApiBenchServer(dbUrl, work, {
    clipThreads: clipThreads ? Number(clipThreads) : undefined,
    clipNiceness: clipNiceness ? Number(clipNiceness) : undefined,
  });
} else await main();
