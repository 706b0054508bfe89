// Media stage benchmark (issue 3): probe, one decode, four previews, four images and peaks, against
// the floor of a plain ffmpeg command that decodes once and writes the same four encodings.
// `npx earshot bench media [--runs 2] [--skip-long]`. Each measurement runs in a fresh process so
// peak memory and CPU are its own; results go to benchmarks/results/media.md.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  defaultFfmpeg,
  PREVIEW_KEYS,
  PREVIEWS,
  probeFile,
  processFile,
  type Stage,
  transcodeArgs,
} from '@earshot/core';
import { ensureFixtures, fixture } from '@earshot/fixtures';
import { arg } from './args.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const resultsFile = path.join(here, '..', 'results', 'media.md');
const MB = 1024 * 1024;
// calibrate and decode overlap (decode, images and peaks run while the Vorbis trials and the
// encoders work), so their CPU columns include whatever else ran meanwhile.
const STAGES: Stage[] = ['probe', 'calibrate', 'decode', 'transcode', 'images', 'peaks', 'commit'];

// ---------- measuring one process and its children ----------

const clockTicks = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** CPU ms of this process (user+system) and of its reaped children (ffmpeg, ffprobe), from /proc. */
function cpuMs(): { self: number; children: number } {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = (i: number) => Number(fields[i]);
  const usage = process.cpuUsage();
  return {
    self: (usage.user + usage.system) / 1000,
    children: ((ticks(13) + ticks(14)) * 1000) / clockTicks,
  };
}

/**
 * Samples the peak resident memory (VmHWM) of this process's children while they run. Reads only
 * /proc/self/task/<tid>/children (not all of /proc), so the watch itself costs next to no CPU.
 */
class ChildMemoryWatch {
  private peaks = new Map<number, { command: string; bytes: number }>();
  private timer = setInterval(() => this.sample(), 100);

  private sample(): void {
    for (const task of fs.readdirSync('/proc/self/task')) {
      let children: string[] = [];
      try {
        children = fs
          .readFileSync(`/proc/self/task/${task}/children`, 'utf8')
          .trim()
          .split(/\s+/)
          .filter(Boolean);
      } catch {
        continue;
      }
      for (const pid of children) {
        try {
          const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
          const hwm = /VmHWM:\s+(\d+) kB/.exec(status);
          const command = /Name:\s+(\S+)/.exec(status)?.[1] ?? '';
          const previous = this.peaks.get(Number(pid))?.bytes ?? 0;
          if (hwm) this.peaks.set(Number(pid), { command, bytes: Math.max(previous, Number(hwm[1]) * 1024) });
        } catch {
          // The child exited between listing and reading.
        }
      }
    }
  }

  /** Sum of the ffmpeg children's peaks (ours runs two encoder processes at once), in bytes. */
  stop(): number {
    clearInterval(this.timer);
    let total = 0;
    for (const { command, bytes } of this.peaks.values()) if (command === 'ffmpeg') total += bytes;
    return total;
  }
}

interface Measurement {
  mode: 'floor' | 'ours';
  wallMs: number;
  cpuMs: number;
  /** Per stage (ours only): wall and CPU (this process + children that ended in it). */
  stages?: Record<string, { wallMs: number; cpuMs: number }>;
  /** Peak RSS of the Node process, and its RSS before the stage began. */
  nodePeakBytes?: number;
  nodeBaseBytes?: number;
  ffmpegPeakBytes: number;
  decodedSamples?: number;
}

async function measureFloor(input: string, outDir: string): Promise<Measurement> {
  const probe = await probeFile(input);
  const previews = PREVIEW_KEYS.map((k) => ({
    encoding: PREVIEWS[k].encoding,
    output: path.join(outDir, PREVIEWS[k].file),
  }));
  const args = transcodeArgs(input, probe, previews);
  const watch = new ChildMemoryWatch();
  const cpu0 = cpuMs();
  const t0 = performance.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn(defaultFfmpeg().binary('ffmpeg').path, args, { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited ${code}`))));
  });
  const wallMs = performance.now() - t0;
  const cpu1 = cpuMs();
  return { mode: 'floor', wallMs, cpuMs: cpu1.children - cpu0.children, ffmpegPeakBytes: watch.stop() };
}

async function measureOurs(input: string, outDir: string): Promise<Measurement> {
  (globalThis as { gc?: () => void }).gc?.();
  const nodeBaseBytes = process.memoryUsage().rss;
  const stages: Record<string, { wallMs: number; cpuMs: number }> = {};
  const starts = new Map<Stage, { t: number; cpu: number }>();
  const totalCpu = () => {
    const c = cpuMs();
    return c.self + c.children;
  };
  const watch = new ChildMemoryWatch();
  const cpu0 = totalCpu();
  const t0 = performance.now();
  const result = await processFile(input, outDir, {
    onStage: (stage, phase) => {
      if (phase === 'start') starts.set(stage, { t: performance.now(), cpu: totalCpu() });
      else {
        const start = starts.get(stage) as { t: number; cpu: number };
        stages[stage] = { wallMs: performance.now() - start.t, cpuMs: totalCpu() - start.cpu };
      }
    },
  });
  const wallMs = performance.now() - t0;
  const cpu = totalCpu() - cpu0;
  return {
    mode: 'ours',
    wallMs,
    cpuMs: cpu,
    stages,
    nodePeakBytes: process.resourceUsage().maxRSS * 1024,
    nodeBaseBytes,
    ffmpegPeakBytes: watch.stop(),
    decodedSamples: Math.round(result.decodedDuration * 44_100),
  };
}

// ---------- child mode: one measurement, one JSON line ----------

if (process.argv.includes('--child')) {
  const mode = arg('child', 'ours') as 'floor' | 'ours';
  const input = arg('input', '');
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), `earshot-bench-media-${mode}-`));
  try {
    const m = mode === 'floor' ? await measureFloor(input, outDir) : await measureOurs(input, outDir);
    process.stdout.write(`${JSON.stringify(m)}\n`);
  } finally {
    fs.rmSync(outDir, { recursive: true, force: true });
  }
  process.exit(0);
}

// ---------- parent: fixtures, runs, table ----------

function runChild(mode: 'floor' | 'ours', input: string): Promise<Measurement> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', fileURLToPath(import.meta.url), '--child', mode, '--input', input],
      { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, LOG_LEVEL: 'warn' } },
    );
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.on('close', (code) => {
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || !line.startsWith('{'))
        reject(new Error(`benchmark child (${mode}) failed with ${code}: ${out}`));
      else resolve(JSON.parse(line) as Measurement);
    });
  });
}

const median = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (n: number, digits = 0) => n.toFixed(digits);
const mb = (bytes: number) => `${fmt(bytes / MB, 1)} MB`;

interface InputReport {
  name: string;
  duration: number;
  lines: string[];
  summary: string;
}

function report(name: string, duration: number, floors: Measurement[], ours: Measurement[]): InputReport {
  const lines: string[] = [];
  lines.push(`#### ${name} (${duration} s) — median of ${ours.length} run(s)`, '');
  lines.push('| stage | wall ms | CPU ms |', '|---|---:|---:|');
  for (const stage of STAGES) {
    const wall = median(ours.map((m) => m.stages?.[stage]?.wallMs ?? 0));
    const cpu = median(ours.map((m) => m.stages?.[stage]?.cpuMs ?? 0));
    const label =
      stage === 'transcode'
        ? 'decode once + 4 previews (mp3 ffmpeg + relayed Vorbis encoder)'
        : stage === 'calibrate'
          ? 'Vorbis quality trials (from 30 s)'
          : stage === 'decode'
            ? 'mono signal (ffmpeg of its own)'
            : stage;
    lines.push(`| ${label} | ${fmt(wall)} | ${fmt(cpu)} |`);
  }
  const oursWall = median(ours.map((m) => m.wallMs));
  const oursCpu = median(ours.map((m) => m.cpuMs));
  const floorWall = median(floors.map((m) => m.wallMs));
  const floorCpu = median(floors.map((m) => m.cpuMs));
  const ratio = oursWall / floorWall;
  lines.push(`| **our media stage, total** | **${fmt(oursWall)}** | **${fmt(oursCpu)}** |`);
  lines.push(
    `| **floor: plain ffmpeg, decode once → 4 encodings** | **${fmt(floorWall)}** | **${fmt(floorCpu)}** |`,
  );
  lines.push('');

  const monoBytes = Math.max(...ours.map((m) => m.decodedSamples ?? 0)) * 4;
  const limit = 2 * monoBytes + 150 * MB;
  const nodePeak = Math.max(...ours.map((m) => m.nodePeakBytes ?? 0));
  const nodeBase = Math.min(...ours.map((m) => m.nodeBaseBytes ?? 0));
  const ffmpegPeak = Math.max(...ours.map((m) => m.ffmpegPeakBytes));
  const stageMemory = nodePeak - nodeBase + ffmpegPeak;
  const rtf = oursWall / 1000 / duration;
  lines.push('| measure | value |', '|---|---:|');
  lines.push(
    `| ratio ours / floor (wall; target ≤ 1.2) | **${fmt(ratio, 3)}** ${ratio <= 1.2 ? '✓' : '✗'} |`,
  );
  lines.push(`| ratio ours / floor (CPU) | ${fmt(oursCpu / floorCpu, 3)} |`);
  lines.push(`| real-time factor (wall / audio duration) | ${fmt(rtf, 4)} (${fmt(1 / rtf, 1)}× real time) |`);
  lines.push(`| decoded mono signal (float32, 44.1 kHz) | ${mb(monoBytes)} |`);
  lines.push(`| Node peak RSS (whole process, incl. runtime, tsx, sharp) | ${mb(nodePeak)} |`);
  lines.push(`| Node RSS before the stage | ${mb(nodeBase)} |`);
  lines.push(
    `| ffmpeg peak RSS, all encoder processes summed (ours / floor) | ${mb(ffmpegPeak)} / ${mb(Math.max(...floors.map((m) => m.ffmpegPeakBytes)))} |`,
  );
  lines.push(
    `| stage memory = Node growth + ffmpeg peak (target < 2× signal + 150 MB = ${mb(limit)}) | **${mb(stageMemory)}** ${stageMemory < limit ? '✓' : '✗'} |`,
  );
  lines.push(
    `| whole-process total = Node peak + ffmpeg peak | ${mb(nodePeak + ffmpegPeak)} ${nodePeak + ffmpegPeak < limit ? '✓' : '✗'} |`,
  );
  lines.push('');
  const summary = `${name}: ours ${fmt(oursWall)} ms vs floor ${fmt(floorWall)} ms → ratio ${fmt(ratio, 3)}; stage memory ${mb(stageMemory)} (limit ${mb(limit)})`;
  return { name, duration, lines, summary };
}

const runs = Number(arg('runs', '2'));
const skipLong = process.argv.includes('--skip-long');
process.stderr.write(`media bench: preparing fixtures${skipLong ? '' : ' (incl. the 10-minute file)'}…\n`);
await ensureFixtures({ long: !skipLong });
const inputs = [
  { name: 'music-mix-60s', duration: 60 },
  ...(skipLong ? [] : [{ name: 'long-10min', duration: 600 }]),
];

const total = inputs.length * runs * 2;
let done = 0;
const reports: InputReport[] = [];
for (const input of inputs) {
  const file = fixture(input.name);
  const floors: Measurement[] = [];
  const ours: Measurement[] = [];
  for (let r = 0; r < runs; r++) {
    // Alternate the order so that neither side always runs on a warm page cache.
    const order: Array<'floor' | 'ours'> = r % 2 === 0 ? ['floor', 'ours'] : ['ours', 'floor'];
    for (const mode of order) {
      done++;
      process.stderr.write(`[${done}/${total}] ${mode} ${input.name} run ${r + 1}/${runs}…\n`);
      const m = await runChild(mode, file);
      (mode === 'floor' ? floors : ours).push(m);
    }
  }
  reports.push(report(input.name, input.duration, floors, ours));
}

const ffmpeg = { ...defaultFfmpeg().binary('ffmpeg'), version: await defaultFfmpeg().version('ffmpeg') };
const header = [
  '## Media stage benchmark',
  '',
  `Command: \`npx earshot bench media${process.argv.slice(2).length ? ` ${process.argv.slice(2).join(' ')}` : ''}\``,
  `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${fmt(os.totalmem() / 1024 ** 3, 0)} GiB, Node ${process.version}, ffmpeg ${ffmpeg.version} (${ffmpeg.source}), ${new Date().toISOString()}`,
  '',
];
const body = [...header, ...reports.flatMap((r) => r.lines)].join('\n');
process.stdout.write(`\n${body}\n`);
for (const r of reports) process.stdout.write(`${r.summary}\n`);
fs.mkdirSync(path.dirname(resultsFile), { recursive: true });
fs.writeFileSync(
  resultsFile,
  `${body}\nNotes: on a shared machine (other engineers' jobs) wall times swing with the load while a run is in progress, so the wall ratio is only meaningful on a quiet machine; the CPU ratio is the steady comparison (both sides run the same single-threaded ffmpeg encode loop). The floor is timed around the ffmpeg process alone (its input was probed beforehand); ours includes probing, md5, images, peaks and the atomic commit.\n`,
);
process.stderr.write(`results written to ${path.relative(process.cwd(), resultsFile)}\n`);
