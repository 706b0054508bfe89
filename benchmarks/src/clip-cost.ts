// Where one 10 s clip's CPU goes in the clip thread, step by step, in this process, one call at a
// time (medians of `--runs`, CPU from process.cpuUsage: this process runs one thread of work):
//   npx tsx benchmarks/src/clip-cost.ts [--runs 21] [--clip /path/to/clip]
// The clip defaults to the example benchmark's (a 10 s, 128 kb/s stereo MP3 of music-mix-60s).

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  analyzeClip,
  analyzeSubset,
  CLIP_FRAME_STRIDE,
  clipAnalysisNeeds,
  decodeClipInProcess,
  exampleAnalysisNeeds,
  loadFloat32Fft,
  planSubset,
} from '@earshot/core';
import { fixture } from '@earshot/fixtures';
import { arg } from './args.ts';

const runs = Number(arg('runs', '21'));
const work = '/tmp/earshot-example-bench';

function defaultClip(): string {
  const file = path.join(work, 'clip-10s.mp3');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(work, { recursive: true });
    execFileSync('ffmpeg', [
      ...['-v', 'error', '-y', '-stream_loop', '-1', '-i', fixture('music-mix-60s'), '-t', '10'],
      ...['-c:a', 'libmp3lame', '-b:a', '128k', file],
    ]);
  }
  return file;
}

const clipFile = arg('clip', '') || defaultClip();

/** Median CPU and wall ms of `runs` calls after two unmeasured ones. */
async function measure(call: () => unknown): Promise<{ cpu: number; wall: number }> {
  await call();
  await call();
  const cpu: number[] = [];
  const wall: number[] = [];
  for (let i = 0; i < runs; i++) {
    const c = process.cpuUsage();
    const t = performance.now();
    await call();
    wall.push(performance.now() - t);
    const d = process.cpuUsage(c);
    cpu.push((d.user + d.system) / 1000);
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return { cpu: median(cpu), wall: median(wall) };
}

const needs = clipAnalysisNeeds();
await loadFloat32Fft();
const plan = planSubset(needs);
const decoded = await decodeClipInProcess(clipFile, { sampleRate: 44_100, maxSeconds: 30 });
if (!decoded) throw new Error(`${clipFile} is not decoded in-process`);
const signal = decoded.samples;

const rows: Array<[string, { cpu: number; wall: number }]> = [
  ['read the file (fs.readFile)', await measure(() => fs.promises.readFile(clipFile))],
  [
    'decode in-process (decodeClipInProcess)',
    await measure(() => decodeClipInProcess(clipFile, { sampleRate: 44_100, maxSeconds: 30 })),
  ],
  [
    `lean analysis, stride ${CLIP_FRAME_STRIDE}, fft.js float64 FFTs`,
    await measure(() => analyzeSubset(signal, 44_100, plan, { frameStride: CLIP_FRAME_STRIDE })),
  ],
  [
    `lean analysis, stride ${CLIP_FRAME_STRIDE}, float32 WebAssembly FFTs (spectra, YIN, salience: what a clip runs)`,
    await measure(() =>
      analyzeSubset(signal, 44_100, plan, { frameStride: CLIP_FRAME_STRIDE, float32Fft: true }),
    ),
  ],
  [
    'lean analysis with the descriptor fallback too (exampleAnalysisNeeds(), the previous needs)',
    await measure(() =>
      analyzeSubset(signal, 44_100, planSubset(exampleAnalysisNeeds()), {
        frameStride: CLIP_FRAME_STRIDE,
        float32Fft: true,
      }),
    ),
  ],
  [
    'amplitude envelope alone (sfx.logattacktime, read by the fallback only)',
    await measure(() => analyzeSubset(signal, 44_100, planSubset(['sfx.logattacktime']))),
  ],
  ['whole clip path (analyzeClip, lean)', await measure(() => analyzeClip(clipFile, { needs }))],
];
console.log(
  `${path.basename(clipFile)}, ${runs} runs, load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ')}`,
);
console.log('| step | CPU ms (median) | wall ms (median) |\n|---|---:|---:|');
for (const [name, m] of rows) console.log(`| ${name} | ${m.cpu.toFixed(1)} | ${m.wall.toFixed(1)} |`);
