// Descriptor analysis benchmark (issue 4): the full analysis (variant A and B, frames file) of the 60 s
// music fixture and of the same music tiled to longer durations, against the anchor of native Essentia's
// FreesoundExtractor (≈9.5 CPU-s per audio minute, 190 MB) and the target of ≤ 3 CPU-s per minute.
// `npx earshot bench descriptors [--runs 3] [--max-seconds 600]`. Each duration runs in a fresh process
// so its peak memory is its own; with 60 s or more, fresh processes also give the cold figure (the first
// analysis of a process). Results go to benchmarks/results/descriptors.md.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyzeSignal, decodeMono, stopEssentiaWorker, writeFramesFile } from '@earshot/core';
import { ensureFixtures, fixture } from '@earshot/fixtures';
import { arg } from './args.ts';

const here = fileURLToPath(import.meta.url);
const resultsFile = path.join(path.dirname(here), '..', 'results', 'descriptors.md');
const MB = 1024 * 1024;
const ANCHOR_CPU_S_PER_MIN = 9.5;
const TARGET_CPU_S_PER_MIN = 3;
const MEMORY_ALLOWANCE = 150 * MB;

function vmKb(field: 'VmHWM' | 'VmRSS'): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

interface ChildResult {
  seconds: number;
  runs: { cpuMs: number; wallMs: number; timings: Record<string, number>; framesBytes: number }[];
  /** One extra run with `profile: true`: CPU ms per group, groups one after another. */
  profile: Record<string, number>;
  signalBytes: number;
  /** Runs at the start not counted (JIT warm-up). */
  warmups?: number;
  rssBeforeDecode: number;
  rssBeforeAnalysis: number;
  peakRss: number;
}

/** The 60 s music fixture tiled to `seconds`; the 60 s decode is dropped so only the tiled signal stays. */
async function tiledMusic(seconds: number): Promise<{ samples: Float32Array; sampleRate: number }> {
  const decoded = await decodeMono(fixture('music-mix-60s'));
  const samples = new Float32Array(Math.round(seconds * decoded.sampleRate));
  for (let at = 0; at < samples.length; at += decoded.samples.length)
    samples.set(decoded.samples.subarray(0, Math.min(decoded.samples.length, samples.length - at)), at);
  return { samples, sampleRate: decoded.sampleRate };
}

/** One duration, measured inside this (fresh) process. */
async function child(seconds: number, runs: number): Promise<void> {
  const rssBeforeDecode = vmKb('VmRSS');
  const { samples, sampleRate } = await tiledMusic(seconds);
  (globalThis as { gc?: () => void }).gc?.();
  const rssBeforeAnalysis = vmKb('VmRSS');
  const result: ChildResult = {
    seconds,
    runs: [],
    profile: {},
    signalBytes: samples.byteLength,
    rssBeforeDecode,
    rssBeforeAnalysis,
    peakRss: 0,
  };
  const framesFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-bench-')), 'frames.json');
  // A worker analyses sound after sound, so the figures are for a warm process: runs until at least 60 s
  // of audio has gone through (JIT tiering takes several short analyses) are warm-up, kept separately.
  const warmups = Math.max(1, Math.ceil(60 / seconds));
  result.warmups = warmups;
  for (let r = 0; r < warmups + runs; r++) {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const analysis = await analyzeSignal(samples, sampleRate, { frames: true });
    // Written the way the pipeline writes it (writeAnalysisFiles streams the frames file).
    const framesBytes = analysis.frames ? await writeFramesFile(analysis.frames, framesFile) : 0;
    JSON.stringify(analysis.variantA);
    const cpu = process.cpuUsage(cpu0);
    result.runs.push({
      cpuMs: (cpu.user + cpu.system) / 1000,
      wallMs: performance.now() - t0,
      timings: analysis.timings,
      framesBytes,
    });
    process.stderr.write(
      `    run ${r < warmups ? `warm-up ${r + 1}/${warmups}` : `${r - warmups + 1}/${runs}`}: ${((cpu.user + cpu.system) / 1e6).toFixed(2)} CPU-s\n`,
    );
  }
  result.peakRss = vmKb('VmHWM');
  result.profile = (await analyzeSignal(samples, sampleRate, { frames: true, profile: true })).timings;
  await stopEssentiaWorker();
  fs.rmSync(path.dirname(framesFile), { recursive: true, force: true });
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/**
 * The cold figure's child: a fresh process decodes the 60 s music and, with `analyse`, runs one full
 * analysis as a measured run does; it prints the whole process's CPU (user + system, all threads,
 * start-up included). The same process without the analysis is the start-up the cold figure leaves out.
 */
async function coldChild(seconds: number, analyse: boolean): Promise<void> {
  const { samples, sampleRate } = await tiledMusic(seconds);
  if (analyse) {
    const framesFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-bench-')), 'frames.json');
    const analysis = await analyzeSignal(samples, sampleRate, { frames: true });
    if (analysis.frames) await writeFramesFile(analysis.frames, framesFile);
    JSON.stringify(analysis.variantA);
    fs.rmSync(path.dirname(framesFile), { recursive: true, force: true });
  }
  await stopEssentiaWorker();
  const cpu = process.cpuUsage();
  process.stdout.write(`${JSON.stringify({ cpuMs: (cpu.user + cpu.system) / 1000 })}\n`);
}

/** Cold rounds: pairs of fresh processes, with and without the one analysis, alternating. */
const COLD_SECONDS = 60;
const COLD_ROUNDS = 3;

interface ColdResult {
  seconds: number;
  withAnalysisMs: number[];
  startupMs: number[];
}

function coldRounds(): ColdResult {
  const result: ColdResult = { seconds: COLD_SECONDS, withAnalysisMs: [], startupMs: [] };
  for (let r = 0; r < COLD_ROUNDS; r++) {
    for (const analyse of [true, false]) {
      process.stderr.write(
        `  cold ${r + 1}/${COLD_ROUNDS}: ${analyse ? 'start-up + one analysis' : 'start-up only'}\n`,
      );
      const out = spawnSync(
        process.execPath,
        ['--import', 'tsx', here, '--cold', String(COLD_SECONDS), '--analyse', analyse ? '1' : '0'],
        { stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * MB },
      );
      if (out.status !== 0) throw new Error(`cold benchmark child failed (${out.status})`);
      const { cpuMs } = JSON.parse(out.stdout.toString().trim().split('\n').pop() ?? '{}');
      (analyse ? result.withAnalysisMs : result.startupMs).push(cpuMs);
    }
  }
  return result;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const loadAtStart = os
  .loadavg()
  .map((l) => l.toFixed(2))
  .join(' / ');

async function main(): Promise<void> {
  const runs = Number(arg('runs', '3'));
  const maxSeconds = Number(arg('max-seconds', '600'));
  await ensureFixtures();
  const durations = [10, 60, 180, 600].filter((s) => s <= maxSeconds);
  const results: ChildResult[] = [];
  for (const [i, seconds] of durations.entries()) {
    // Long inputs get one measured run: they exist to show linearity, not to be averaged.
    const n = seconds > 60 ? 1 : runs;
    process.stderr.write(`[${i + 1}/${durations.length}] ${seconds} s of music, ${n} measured run(s)\n`);
    const out = spawnSync(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', here, '--child', String(seconds), '--runs', String(n)],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
        maxBuffer: 64 * MB,
      },
    );
    if (out.status !== 0) throw new Error(`benchmark child for ${seconds} s failed (${out.status})`);
    results.push(JSON.parse(out.stdout.toString().trim().split('\n').pop() ?? '{}'));
  }
  const cold = maxSeconds >= COLD_SECONDS ? coldRounds() : undefined;
  const report = render(results, runs, cold);
  process.stdout.write(report);
  fs.mkdirSync(path.dirname(resultsFile), { recursive: true });
  fs.writeFileSync(resultsFile, report);
  process.stdout.write(`\nwritten to ${path.relative(process.cwd(), resultsFile)}\n`);
}

function render(results: ChildResult[], runs: number, cold?: ColdResult): string {
  const ffmpeg = (() => {
    try {
      return execFileSync('ffmpeg', ['-version']).toString().split('\n')[0];
    } catch {
      return 'ffmpeg (unknown)';
    }
  })();
  const lines: string[] = [];
  lines.push('## Descriptor analysis benchmark', '');
  lines.push(`Command: \`npx earshot bench descriptors --runs ${runs}\``);
  lines.push(
    `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 1024 ** 3).toFixed(0)} GiB, Node ${process.version}, ${ffmpeg}, ${new Date().toISOString()}`,
    '',
  );
  lines.push(
    'Input: the `music-mix-60s` fixture decoded to mono 44.1 kHz (decode not counted), tiled for the longer durations.',
  );
  lines.push(
    'Measured: `analyzeSignal(samples, 44100, { frames: true })` + serializing the frames file and the variant-A tree — both variants, frames, and the statistics the `freesound_classic` similarity input is built from. CPU = user + system of the whole process. Rhythm comes from our beat tracker (the default); the essentia.js worker is not started.',
    '',
  );

  lines.push('### Speed against the anchor', '');
  lines.push(
    '| audio | CPU s (median) | CPU s per audio minute | real-time factor (audio / CPU) | native Essentia anchor | target ≤ 3 CPU-s/min |',
  );
  lines.push('|---:|---:|---:|---:|---:|:---:|');
  for (const r of results) {
    const measured = r.runs.slice(r.warmups ?? 1);
    const cpuS = median(measured.map((m) => m.cpuMs)) / 1000;
    const perMin = (cpuS / r.seconds) * 60;
    lines.push(
      `| ${r.seconds} s | ${cpuS.toFixed(2)} | ${perMin.toFixed(2)} | **${(r.seconds / cpuS).toFixed(1)}×** | ${((ANCHOR_CPU_S_PER_MIN * r.seconds) / 60).toFixed(1)} s (6.3×) | ${perMin <= TARGET_CPU_S_PER_MIN ? '✓' : '✗'} |`,
    );
  }
  if (cold) {
    const withAnalysis = median(cold.withAnalysisMs);
    const startup = median(cold.startupMs);
    const perMin = ((withAnalysis - startup) / 1000 / cold.seconds) * 60;
    lines.push(
      '',
      `Cold: the first analysis in a fresh process (${cold.seconds} s, analysed once), as the whole process's CPU less that of the same process without the analysis (start-up, module loading, decode), medians of ${cold.withAnalysisMs.length} alternating pairs.`,
      '',
      '| audio | process with the analysis, CPU s | process without it, CPU s | cold analysis CPU s per audio minute | target ≤ 3 CPU-s/min |',
      '|---:|---:|---:|---:|:---:|',
      `| ${cold.seconds} s | ${(withAnalysis / 1000).toFixed(2)} (${cold.withAnalysisMs.map((ms) => (ms / 1000).toFixed(2)).join(', ')}) | ${(startup / 1000).toFixed(2)} (${cold.startupMs.map((ms) => (ms / 1000).toFixed(2)).join(', ')}) | **${perMin.toFixed(2)}** | ${perMin <= TARGET_CPU_S_PER_MIN ? '✓' : '✗'} |`,
    );
  }
  const base = results.find((r) => r.seconds === 60) ?? results[0];
  lines.push(
    '',
    `### CPU per descriptor group (${base.seconds} s input; one profiling run with the groups one after another)`,
    '',
  );
  lines.push('| group | CPU ms | share | what |');
  lines.push('|---|---:|---:|---|');
  const what: Record<string, string> = {
    beats:
      'our beat tracker: three onset functions every 1024 samples and the information gain every 512 (a Hann FFT every 512), Degara tracker on each, max-agreement choice',
    lowlevel:
      'frame loop: one FFT per 2048 frame, all spectral features, bands, MFCC/GFCC, the reference pitch track, peaks, dissonance',
    tonal: '4096 frames every 2048: HPCP (36), tuning, chords',
    key: "the reference's KeyExtractor: a Hann 4096 FFT every 4096 samples, whitened peaks, 12-bin HPCP, bgate profiles",
    loudness: 'EBU R128 K-weighting, momentary, short-term, integrated, range',
    sfx: 'envelope, temporal descriptors, sound bounds, single event, RT60',
    onsets:
      "the reference's OnsetRate (a 1024 Hann FFT every 512 samples, HFC and complex-domain functions, peak picking) and our onset peaks for the tempo check",
    rhythm: 'tempo check and refit, beat loudness',
    loop: "the reference's loop estimate: Percival tempo (a Hamming 1024 float32 FFT every 128 samples) and loop confidence",
    statistics: 'variant-A tree: mean/var/…/dvar2 for every frame series',
    timbral_and_variant_b: 'timbral models and the variant-B dictionary',
    frames_file:
      'frames file layout (the base64 encoding happens as `writeFramesFile` streams it: in the run totals above, not in this table)',
  };
  const profileTotal = Object.keys(what).reduce((a, g) => a + (base.profile[g] ?? 0), 0);
  for (const group of Object.keys(what)) {
    const ms = base.profile[group] ?? 0;
    lines.push(
      `| ${group} | ${ms.toFixed(0)} | ${((100 * ms) / profileTotal).toFixed(0)}% | ${what[group]} |`,
    );
  }
  lines.push(`| **sum** | **${profileTotal.toFixed(0)}** | | |`);
  lines.push('', '### Memory and output size', '');
  lines.push(
    '| audio | decoded signal | RSS before decode | peak RSS | peak − RSS before decode | target (signal + 150 MB) | frames file | frames per audio minute |',
  );
  lines.push('|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    const growth = r.peakRss - r.rssBeforeDecode;
    const target = r.signalBytes + MEMORY_ALLOWANCE;
    const frames = r.runs[r.runs.length - 1].framesBytes;
    lines.push(
      `| ${r.seconds} s | ${(r.signalBytes / MB).toFixed(1)} MB | ${(r.rssBeforeDecode / MB).toFixed(0)} MB | ${(r.peakRss / MB).toFixed(0)} MB | **${(growth / MB).toFixed(0)} MB** ${growth <= target ? '✓' : '✗'} | ${(target / MB).toFixed(0)} MB | ${(frames / MB).toFixed(2)} MB | ${((frames / MB / r.seconds) * 60).toFixed(2)} MB |`,
    );
  }
  lines.push(
    '',
    `Notes: load average at the start ${loadAtStart}, at the end ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(
        ' / ',
      )} (1/5/15 min); the machine is shared by several engineers, so wall times carry noise; CPU is steadier. Figures are for a warm process, as a worker that analyses sound after sound: the first runs of each process, until 60 s of audio has been analyzed (one run from 60 s up, six at 10 s), are JIT warm-up and not counted. Peak RSS is the process high-water mark over all runs of that duration (the runs follow each other without a forced GC). The decoded signal is in "peak − RSS before decode" (the decode itself is the media stage's; the 60 s decode used for tiling is released before the runs). The frames file is streamed to a temporary file with \`writeFramesFile\`, as the pipeline writes it.`,
    '',
  );
  return `${lines.join('\n')}\n`;
}

if (process.argv.includes('--cold')) await coldChild(Number(arg('cold', '60')), arg('analyse', '1') === '1');
else if (process.argv.includes('--child')) await child(Number(arg('child', '60')), Number(arg('runs', '3')));
else await main();
