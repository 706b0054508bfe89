// The analysis of this tree against another checkout's, alternated in one process:
// `npx earshot bench analysis-ab --base DIR [--pairs 40] [--seconds 60]`, DIR a checkout (a git worktree
// of the commit to compare with) whose node_modules are installed.
//
// Both trees' `analyzeSignal` are imported from their sources into the same process and run one after
// the other on the same signal, the order swapped every pair, so that the machine's drift (other work,
// the host's load) falls on both alike: on a shared two-core machine single runs of the same code spread
// by ±20 %, and the ratio of alternated pairs is what resolves a few per cent. CPU is the process's
// (user + system, every thread: the collector's threads included), as the descriptors bench counts it;
// each analysis also serializes its variant-A tree, as a worker does.
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { decodeMono } from '@earshot/core';
import { ensureFixtures, fixture } from '@earshot/fixtures';
import { arg } from './args.ts';

// Both trees run from their sources (the workspace packages they import too), so the comparison does
// not depend on either tree's build: the harness restarts itself under the source condition.
const SOURCE_CONDITION = '--conditions=@earshot/source';
if (!process.execArgv.includes(SOURCE_CONDITION)) {
  const rerun = spawnSync(
    process.execPath,
    [SOURCE_CONDITION, '--import', 'tsx', fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    { stdio: 'inherit' },
  );
  process.exit(rerun.status ?? 1);
}

type Analyze = typeof import('../../packages/core/src/descriptors/analyze.ts').analyzeSignal;

const base = arg('base', '');
if (!base) {
  process.stderr.write('usage: npx earshot bench analysis-ab --base DIR [--pairs 40] [--seconds 60]\n');
  process.exit(2);
}
const pairs = Number(arg('pairs', '40'));
const seconds = Number(arg('seconds', '60'));

const source = (root: string) =>
  pathToFileURL(path.resolve(root, 'packages/core/src/descriptors/analyze.ts')).href;
const ours: Analyze = (await import(source(path.resolve(import.meta.dirname, '../..')))).analyzeSignal;
const theirs: Analyze = (await import(source(base))).analyzeSignal;

await ensureFixtures();
const decoded = await decodeMono(fixture('music-mix-60s'));
const samples = new Float32Array(Math.round(seconds * decoded.sampleRate));
for (let at = 0; at < samples.length; at += decoded.samples.length)
  samples.set(decoded.samples.subarray(0, Math.min(decoded.samples.length, samples.length - at)), at);

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
async function run(analyze: Analyze): Promise<number> {
  const start = cpuMs();
  const analysis = await analyze(samples, decoded.sampleRate, { frames: true });
  JSON.stringify(analysis.variantA);
  return cpuMs() - start;
}

const loadStart = os.loadavg();
// JIT warm-up for both, as a worker that analyses sound after sound is warm.
for (let i = 0; i < Math.max(2, Math.ceil(120 / seconds)); i++) {
  await run(ours);
  await run(theirs);
}
const oursMs: number[] = [];
const theirsMs: number[] = [];
for (let i = 0; i < pairs; i++) {
  if (i % 2 === 0) {
    oursMs.push(await run(ours));
    theirsMs.push(await run(theirs));
  } else {
    theirsMs.push(await run(theirs));
    oursMs.push(await run(ours));
  }
  process.stderr.write(`\r  pair ${i + 1}/${pairs}`);
}
process.stderr.write('\n');

const quantile = (xs: number[], q: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  return sorted[lo] + (sorted[Math.min(lo + 1, sorted.length - 1)] - sorted[lo]) * (at - lo);
};
const perMinute = (ms: number) => (ms / 1000 / (seconds / 60)).toFixed(2);
const ratios = oursMs.map((ms, i) => ms / theirsMs[i]);
const loadEnd = os.loadavg();
process.stdout.write(
  [
    `Analysis A/B: this tree against ${base}, ${seconds} s of the music fixture, ${pairs} alternated pairs in one process`,
    `load average ${loadStart.map((l) => l.toFixed(1)).join(' / ')} at the start, ${loadEnd.map((l) => l.toFixed(1)).join(' / ')} at the end`,
    '',
    '| tree | CPU ms, median | CPU-s per audio minute | quartiles, ms |',
    '|---|---:|---:|---|',
    `| this tree | ${quantile(oursMs, 0.5).toFixed(0)} | ${perMinute(quantile(oursMs, 0.5))} | ${quantile(oursMs, 0.25).toFixed(0)}–${quantile(oursMs, 0.75).toFixed(0)} |`,
    `| base | ${quantile(theirsMs, 0.5).toFixed(0)} | ${perMinute(quantile(theirsMs, 0.5))} | ${quantile(theirsMs, 0.25).toFixed(0)}–${quantile(theirsMs, 0.75).toFixed(0)} |`,
    '',
    `ratio this tree ÷ base per pair: median ${quantile(ratios, 0.5).toFixed(3)}, quartiles ${quantile(ratios, 0.25).toFixed(3)}–${quantile(ratios, 0.75).toFixed(3)}`,
    '',
  ].join('\n'),
);
process.exit(0);
