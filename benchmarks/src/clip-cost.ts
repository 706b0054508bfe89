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
import { MPEGDecoder } from 'mpg123-decoder';
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

/**
 * The decode before mpeg.ts (for comparison): a new package decoder per clip (its own 16 MB
 * WebAssembly memory), its public decode() on 64 KB reads, the chunks mixed down afterwards.
 */
async function freshDecoderPerClip(): Promise<number> {
  const bytes = await fs.promises.readFile(clipFile);
  const decoder = new MPEGDecoder();
  await decoder.ready;
  const parts: Float32Array[][] = [];
  let frames = 0;
  for (let offset = 0; offset < bytes.length && frames < 30 * 44_100; offset += 65_536) {
    const decoded = decoder.decode(new Uint8Array(bytes.subarray(offset, offset + 65_536)));
    parts.push(decoded.channelData);
    frames += decoded.samplesDecoded;
  }
  decoder.free();
  const out = new Float32Array(frames);
  let at = 0;
  for (const [left, right] of parts) {
    for (let i = 0; i < left.length; i++) out[at + i] = left[i] * 0.5 + right[i] * 0.5;
    at += left.length;
  }
  return out.length;
}

const rows: Array<[string, { cpu: number; wall: number }]> = [
  ['read the file (fs.readFile)', await measure(() => fs.promises.readFile(clipFile))],
  [
    'decode with a new package decoder per clip, its decode() and copies (before mpeg.ts)',
    await measure(freshDecoderPerClip),
  ],
  [
    "decode in-process (decodeClipInProcess: the thread's reused mpg123, mixed from its memory)",
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
