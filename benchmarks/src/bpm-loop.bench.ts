// What the reference's loop tempo (rhythm.bpm_loop, bpm_loop_confidence: percival-bpm.ts and
// loop-bpm-confidence.ts) would add to the analysis: in one process, rounds alternating the whole
// analysis of the 60 s music fixture (the floor: analyzeSignal with the frames file, as the pipeline runs
// it) with the loop tempo and its parts on the same signal; CPU per audio minute, medians, and the loop
// tempo's share of the analysis per round (a ratio, which a shared machine's load moves far less than the
// absolute figures). `npx earshot bench bpm-loop [--rounds 8] [--seconds 60]`; writes
// benchmarks/results/bpm-loop.md.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyzeSignal, decodeMono, loadFloat32Fft } from '@earshot/core';
import { ensureFixtures, fixture } from '@earshot/fixtures';
import { loopBpmConfidence } from '../../packages/core/src/descriptors/loop-bpm-confidence.ts';
import {
  ossCandidates,
  percivalBpm,
  percivalFlux,
  percivalLowPass,
  tempoFromLags,
} from '../../packages/core/src/descriptors/percival-bpm.ts';
import { arg } from './args.ts';
import { loadAverage, quantile } from './load-and-quantiles.ts';

const here = fileURLToPath(import.meta.url);
const resultsFile = path.join(path.dirname(here), '..', 'results', 'bpm-loop.md');

const median = (xs: number[]) => quantile(xs, 0.5);

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

async function main(): Promise<void> {
  const rounds = Number(arg('rounds', '8'));
  const seconds = Number(arg('seconds', '60'));
  await ensureFixtures();
  await loadFloat32Fft();
  const decoded = await decodeMono(fixture('music-mix-60s'));
  const samples = new Float32Array(Math.round(seconds * decoded.sampleRate));
  for (let at = 0; at < samples.length; at += decoded.samples.length)
    samples.set(decoded.samples.subarray(0, Math.min(decoded.samples.length, samples.length - at)), at);
  const sr = decoded.sampleRate;
  const perMinute = (ms: number) => ms / 1000 / (seconds / 60);
  let flux: Float32Array = new Float32Array(0);
  let oss: Float32Array = new Float32Array(0);
  const steps: Record<string, () => unknown> = {
    analysis: () => analyzeSignal(samples, sr, { frames: true }),
    'loop tempo + confidence': () => {
      const bpm = percivalBpm(samples, sr);
      return loopBpmConfidence(samples, Math.round(bpm), sr);
    },
    'onset strength (flux)': () => {
      flux = percivalFlux(samples);
    },
    'low-pass, windows, lags, octave': () => {
      oss = percivalLowPass(flux);
      return tempoFromLags(
        ossCandidates(oss, sr).map((c) => (c.length > 0 ? Math.round(c[0]) : -1)),
        sr,
      );
    },
    confidence: () => loopBpmConfidence(samples, 120, sr),
  };
  const loadStart = loadAverage();
  // JIT warm-up: two of each.
  for (let i = 0; i < 2; i++) for (const run of Object.values(steps)) await run();
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(steps).map((k) => [k, []]));
  const names = Object.keys(steps);
  for (let r = 0; r < rounds; r++) {
    // The analysis first in even rounds, last in odd ones.
    const order = r % 2 === 0 ? names : ['loop tempo + confidence', ...names.slice(2), 'analysis'];
    for (const name of order) {
      const start = cpuMs();
      await steps[name]();
      times[name].push(cpuMs() - start);
    }
    process.stderr.write(`\rround ${r + 1}/${rounds}`);
  }
  process.stderr.write('\n');
  const loadEnd = loadAverage();
  const shares = times['loop tempo + confidence'].map((t, i) => t / times.analysis[i]);
  const lines = [
    '## The reference loop tempo beside the analysis',
    '',
    `Command: \`npx earshot bench bpm-loop --rounds ${rounds} --seconds ${seconds}\`, ${new Date().toISOString()}; load average ${loadStart} at the start, ${loadEnd} at the end (1/5/15 min, 2 cores).`,
    '',
    `Input: the \`music-mix-60s\` fixture${seconds === 60 ? '' : ` tiled to ${seconds} s`}, mono 44.1 kHz. One process, ${rounds} rounds after two warm-up runs of each step; the analysis and the loop tempo alternate first and last.`,
    '',
    '| step | CPU ms (median) | CPU s per audio minute | rounds (CPU ms) |',
    '|---|---:|---:|---|',
    ...names.map(
      (name) =>
        `| ${name} | ${median(times[name]).toFixed(0)} | ${perMinute(median(times[name])).toFixed(3)} | ${times[name].map((t) => t.toFixed(0)).join(', ')} |`,
    ),
    '',
    `Loop tempo + confidence over the analysis, per round: ${shares.map((s) => s.toFixed(3)).join(', ')}; median **${median(shares).toFixed(3)}**.`,
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  fs.writeFileSync(resultsFile, `# Loop tempo cost (issue 37)\n\n${lines.join('\n')}`);
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
