// Pipeline benchmark (issue 7): import N fixture sounds (default 200) and let 1, then 2, real
// `earshot worker` processes (BullMQ on Redis, catalogue on the PostgreSQL server) process them.
// Reports sounds per minute, the scaling ratio, and the queue's own overhead per sound against the
// time of the stage handlers alone.
// `npx earshot bench pipeline [--sounds 200] [--workers 1,2]`. Results: benchmarks/results/pipeline.md.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openCatalogue } from '@earshot/catalogue';
import { createLogger, DEFAULT_TEST_DATABASE_URL, DEFAULT_TEST_REDIS_URL } from '@earshot/common';
import { ensureFixtures, fixturesDir } from '@earshot/fixtures';
import { createUser, queueImports, SoundIntake, waitForSounds } from '@earshot/services';
import { type BullmqRunner, createJobRunner, type JobReturn, STAGES } from '@earshot/workers';
import pg from 'pg';
import { arg } from './args.ts';
import { EARSHOT_BIN } from './processes.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const resultsFile = path.join(here, '..', 'results', 'pipeline.md');
const MAX_FIXTURE_SECONDS = 10;
const SOURCE_STRIDE = 37;

const soundCount = Number(arg('sounds', '200'));
const workerCounts = arg('workers', '1,2').split(',').map(Number);
const databaseUrl = process.env.DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL;
const redisUrl = process.env.REDIS_URL ?? DEFAULT_TEST_REDIS_URL;
const logger = createLogger('warn');

/**
 * N distinct files from the WAV fixtures (short ones). The catalogue refuses a file it already has
 * (same md5), so repeats get their last byte changed: a different file, the same work.
 */
async function prepareInputs(dir: string): Promise<string[]> {
  const manifest = await ensureFixtures();
  // Some fixtures are byte-identical (a 16-bit mono 44.1 kHz tone is several formats' reference): one each.
  const seen = new Set<string>();
  const sources = manifest.fixtures.filter((f) => {
    const fits =
      !f.bad && f.format === 'wav' && (f.duration ?? 0) >= 0.5 && (f.duration ?? 0) <= MAX_FIXTURE_SECONDS;
    if (!fits || seen.has(f.md5)) return false;
    seen.add(f.md5);
    return true;
  });
  let stride = SOURCE_STRIDE;
  while (gcd(stride, sources.length) !== 1) stride++;
  const files: string[] = [];
  for (let i = 0; i < soundCount; i++) {
    // A stride through the sources (coprime with their count): a short run gets every kind of
    // fixture (sines, drums, chords…) in the same mix as a long one, not only the first kind.
    const source = sources[(i * stride) % sources.length];
    const bytes = fs.readFileSync(path.join(fixturesDir(), source.file));
    const round = Math.floor(i / sources.length);
    if (round > 0) bytes[bytes.length - 1] ^= round;
    const file = path.join(dir, `${String(i).padStart(3, '0')}-${source.name}.wav`);
    fs.writeFileSync(file, bytes);
    files.push(file);
  }
  return files;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

function startWorker(env: NodeJS.ProcessEnv, prefix: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [EARSHOT_BIN, 'worker', '--concurrency', '1', '--queue-prefix', prefix],
    { env: { ...process.env, ...env, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('ready')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`worker exited with ${code} before it was ready`)));
  });
}

interface StageCost {
  stage: string;
  jobs: number;
  handlerMs: number;
  cpuMs: number;
  childCpuMs: number;
}

interface RunResult {
  workers: number;
  sounds: number;
  failed: number;
  importS: number;
  processS: number;
  soundsPerMinute: number;
  endToEndPerMinute: number;
  handlerMsPerSound: number;
  overheadMsPerSound: number;
  overheadPct: number;
  /** The part of the overhead spent in the catalogue hooks (the rest is BullMQ and the gaps between jobs). */
  hooksMsPerSound: number;
  /** CPU seconds of each worker process (and its ffmpeg children) per second of processing. */
  coresPerWorker: number;
  /** CPU ms of the worker processes and their children per sound (the work itself, whatever the load). */
  cpuMsPerSound: number;
  /** Busy cores of the whole machine while processing (workers, PostgreSQL, Redis, this bench, other users). */
  machineBusyCores: number;
  load: string;
  stages: StageCost[];
}

/** CPU ms of a process so far, its reaped children included (ffmpeg, ffprobe). */
function processCpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 10;
}

/** Busy and total jiffies of the whole machine (all cores). */
function machineTicks(): { busy: number; total: number } {
  const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].split(/\s+/).slice(1).map(Number);
  const total = cpu.reduce((a, b) => a + (b || 0), 0);
  const idle = (cpu[3] ?? 0) + (cpu[4] ?? 0);
  return { busy: total - idle, total };
}

function loadAverage(): string {
  return os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

async function run(workers: number, files: string[]): Promise<RunResult> {
  const tag = `earshot_bench_${process.pid}_${workers}`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${tag}`);
  const url = new URL(databaseUrl);
  url.pathname = `/${tag}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-bench-pipeline-'));
  const config = { DATABASE_URL: url.toString(), REDIS_URL: redisUrl, dataDir, WORKER_CONCURRENCY: 1 };
  const catalogue = await openCatalogue({ config, logger, role: 'command', description: 'bench pipeline' });
  const prefix = `earshot-bench-${process.pid}-${workers}`;
  const children: ChildProcess[] = [];
  const producer = createJobRunner({ config, logger, catalogue, queuePrefix: prefix });
  const queue = (producer.runner as BullmqRunner).queue;
  try {
    const userId = await createUser(catalogue.db, { username: 'bench' });
    const env = { DATA_DIR: dataDir, DATABASE_URL: config.DATABASE_URL, REDIS_URL: redisUrl };
    for (let i = 0; i < workers; i++) children.push(await startWorker(env, prefix));

    // Import phase on its own: the workers are ready but the queue is paused, so the import does
    // not compete with processing and processing is timed without it.
    await queue.pause();
    let imported = 0;
    const importStart = performance.now();
    const intake = new SoundIntake(catalogue.db, producer.storage);
    const queued = await queueImports(intake, producer.pipeline, files, {
      userId,
      approve: true,
      onQueued: () => {
        if (++imported % 10 === 0) process.stderr.write(`\r  ${workers} worker(s): ${imported} imported   `);
      },
    });
    const importS = (performance.now() - importStart) / 1000;

    const cpuBefore = children.map((c) => processCpuMs(c.pid!));
    const ticksBefore = machineTicks();
    const processStart = Date.now();
    await queue.resume();
    let shown = -1;
    const outcomes = await waitForSounds(
      catalogue.db,
      queued,
      (done, failed) => {
        if (done === shown) return;
        shown = done;
        process.stderr.write(
          `\r  ${workers} worker(s): ${done}/${files.length} sounds processed, ${failed} failed   `,
        );
      },
      { pollMs: 500 },
    );
    const cpuAfter = children.map((c) => processCpuMs(c.pid!));
    const ticksAfter = machineTicks();
    const load = loadAverage();
    process.stderr.write('\n');

    const jobs = await queue.getCompleted(0, 100_000);
    const processEnd = Math.max(...jobs.map((j) => j?.finishedOn ?? 0), processStart);
    const processS = (processEnd - processStart) / 1000;
    const overhead = queueOverhead(jobs);
    const failed = outcomes.filter((o) => o.state === 'Failed');
    for (const f of failed.slice(0, 5)) process.stderr.write(`  failed: ${f.file}: ${f.reason}\n`);
    const workerCpuS = cpuAfter.reduce((sum, after, i) => sum + after - cpuBefore[i], 0) / 1000;
    const machine = {
      busy: ticksAfter.busy - ticksBefore.busy,
      total: ticksAfter.total - ticksBefore.total,
    };
    return {
      workers,
      sounds: files.length,
      failed: failed.length,
      importS,
      processS,
      soundsPerMinute: (files.length / processS) * 60,
      endToEndPerMinute: (files.length / (importS + processS)) * 60,
      handlerMsPerSound: overhead.handlerMs / files.length,
      overheadMsPerSound: overhead.overheadMs / files.length,
      overheadPct: (overhead.overheadMs / overhead.handlerMs) * 100,
      hooksMsPerSound: overhead.hooksMs / files.length,
      coresPerWorker: workerCpuS / workers / processS,
      cpuMsPerSound: (workerCpuS * 1000) / files.length,
      machineBusyCores: (machine.busy / machine.total) * os.cpus().length,
      load,
      stages: stageCosts(jobs, files.length),
    };
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(
      children.map(
        (c) => new Promise((resolve) => (c.exitCode !== null ? resolve(0) : c.once('exit', resolve))),
      ),
    );
    await queue.obliterate({ force: true }).catch(() => {});
    await producer.close(0);
    await catalogue.close();
    await admin.query(`DROP DATABASE IF EXISTS ${tag}`).catch((err) => {
      process.stderr.write(`  could not drop database ${tag}: ${(err as Error).message}\n`);
    });
    await admin.end();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

type CompletedJob = Awaited<ReturnType<BullmqRunner['queue']['getCompleted']>>[number];

/**
 * From the completed jobs (BullMQ keeps each job's start, end, worker and the handler's own time):
 * for each worker, the span from its first job's start to its last job's end, minus the time spent
 * inside handlers, is what the queue cost: fetching, locking, completing, the catalogue hooks, and
 * the waits between jobs. Idle time before the first job and after the last is not counted.
 */
function queueOverhead(jobs: CompletedJob[]): { handlerMs: number; overheadMs: number; hooksMs: number } {
  const byWorker = new Map<string, Array<{ start: number; end: number; handlerMs: number }>>();
  let hooksMs = 0;
  for (const job of jobs) {
    if (!job?.processedOn || !job.finishedOn) continue;
    const list = byWorker.get(job.processedBy ?? '?') ?? [];
    list.push({ start: job.processedOn, end: job.finishedOn, handlerMs: job.returnvalue?.handlerMs ?? 0 });
    byWorker.set(job.processedBy ?? '?', list);
    hooksMs += (job.returnvalue as JobReturn | undefined)?.hooksMs ?? 0;
  }
  let handlerMs = 0;
  let spanMs = 0;
  for (const list of byWorker.values()) {
    spanMs += Math.max(...list.map((j) => j.end)) - Math.min(...list.map((j) => j.start));
    handlerMs += list.reduce((sum, j) => sum + j.handlerMs, 0);
  }
  return { handlerMs, overheadMs: spanMs - handlerMs, hooksMs };
}

/** Per stage, per sound: the handler's wall time, the worker's CPU and its ffmpeg/ffprobe children's. */
function stageCosts(jobs: CompletedJob[], sounds: number): StageCost[] {
  return STAGES.map(({ name }) => {
    const own = jobs.filter((j) => j?.name === name);
    const sum = (key: keyof JobReturn) =>
      own.reduce((total, j) => total + ((j.returnvalue as JobReturn | undefined)?.[key] ?? 0), 0) / sounds;
    return {
      stage: name,
      jobs: own.length,
      handlerMs: sum('handlerMs'),
      cpuMs: sum('cpuMs'),
      childCpuMs: sum('childCpuMs'),
    };
  });
}

function table(results: RunResult[]): string {
  const base = results.find((r) => r.workers === 1);
  const rows = results.map((r) => {
    const scaling = base ? r.soundsPerMinute / base.soundsPerMinute : Number.NaN;
    const scaleCell =
      r.workers === 1 || !base ? '1.00×' : `**${scaling.toFixed(2)}×** ${scaling >= 1.8 ? '✓' : '✗'}`;
    const overheadCell = `**${r.overheadPct.toFixed(2)} %** ${r.overheadPct <= 2 ? '✓' : '✗'}`;
    return `| ${r.workers} | ${r.sounds} | ${r.failed} | ${r.importS.toFixed(1)} | ${r.processS.toFixed(1)} | ${r.soundsPerMinute.toFixed(1)} | ${scaleCell} | ${r.endToEndPerMinute.toFixed(1)} | ${r.handlerMsPerSound.toFixed(0)} | ${r.overheadMsPerSound.toFixed(1)} (hooks ${r.hooksMsPerSound.toFixed(1)}) | ${overheadCell} | ${r.cpuMsPerSound.toFixed(0)} | ${r.coresPerWorker.toFixed(2)} | ${r.machineBusyCores.toFixed(2)} | ${r.load} |`;
  });
  return [
    '| worker processes | sounds | failed | import s | processing s | sounds/min (processing) | scaling vs 1 (floor ≥ 1.8×) | sounds/min (import + processing) | handler ms/sound | queue overhead ms/sound (of which catalogue hooks) | overhead / handler time (floor ≤ 2 %) | worker CPU ms/sound | CPU cores per worker | machine busy cores | load avg after (1/5/15 min) |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...rows,
  ].join('\n');
}

function stageTable(results: RunResult[]): string {
  const rows: string[] = [];
  for (const r of results) {
    for (const s of r.stages) {
      rows.push(
        `| ${r.workers} | ${s.stage} | ${s.jobs} | ${s.handlerMs.toFixed(0)} | ${s.cpuMs.toFixed(0)} | ${s.childCpuMs.toFixed(0)} | ${((s.cpuMs + s.childCpuMs) / Math.max(1, s.handlerMs)).toFixed(2)} |`,
      );
    }
  }
  return [
    '| worker processes | stage | jobs | handler ms/sound | worker CPU ms/sound | ffmpeg/ffprobe CPU ms/sound | CPU / wall |',
    '|---:|---|---:|---:|---:|---:|---:|',
    ...rows,
  ].join('\n');
}

async function main(): Promise<void> {
  const inputDir = fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-bench-inputs-'));
  try {
    process.stderr.write(`preparing ${soundCount} input files…\n`);
    const files = await prepareInputs(inputDir);
    const results: RunResult[] = [];
    for (const workers of workerCounts) results.push(await run(workers, files));
    const output = table(results);
    const stages = stageTable(results);
    process.stdout.write(`\n${output}\n\n${stages}\n`);
    const report = [
      '## Pipeline benchmark',
      '',
      `Command: \`npx earshot bench pipeline ${process.argv.slice(2).join(' ')}\``.replace(/ `$/, '`'),
      `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${new Date().toISOString()}`,
      `Setup: each run imports the same ${soundCount} WAV fixtures (0.5–${MAX_FIXTURE_SECONDS} s; repeats made distinct by one byte) into a fresh PostgreSQL database; \`earshot worker --concurrency 1\` processes (one job per core: no relayed second encoder) run the five stages (probe, media, analysis, similarity, handover) through BullMQ on the shared Redis.`,
      '',
      output,
      '',
      `What is counted: **import s** = creating the ${soundCount} sounds` +
        " in the catalogue and queueing them (`queueImports`), timed alone while the queue is paused and the workers wait. **processing s** = from resuming the queue to the end of the last job (BullMQ timestamps); sounds/min (processing) and the scaling ratio use it. sounds/min (import + processing) = sounds / (import s + processing s). Queue overhead per worker = span from its first job start to its last job end − time inside the stage handlers (BullMQ fetch/lock/complete, the catalogue hooks and the gaps between jobs), summed over workers and divided by sounds. Worker CPU ms/sound = the worker processes' CPU (all threads plus their ffmpeg/ffprobe children, from /proc) during processing ÷ sounds: the work itself, which other people's load changes little. CPU cores per worker = that CPU (all threads plus their ffmpeg/ffprobe children, from /proc) during processing ÷ processing s ÷ workers. Machine busy cores = all CPU of the machine during processing (the workers, PostgreSQL, Redis, this benchmark and anyone else's work).",
      '',
      "Per stage, per sound (handler time and the CPU spent during it; one job at a time per worker, so the CPU is the job's):",
      '',
      stages,
      '',
      'The machine is shared by several engineers, so wall times carry noise; the load average is printed with each run.',
      '',
    ].join('\n');
    fs.writeFileSync(resultsFile, report);
    process.stderr.write(`results written to ${path.relative(process.cwd(), resultsFile)}\n`);
  } finally {
    fs.rmSync(inputDir, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
