/**
 * The codec noise of each freesound_classic input on the 40 calibration recordings: each recording
 * and its twin (3 dB quieter, 128k mp3, as the twin set makes them) analysed with the space's lean
 * analysis on every frame; writes benchmarks/.cache/twins/codec-noise.json with both analyses' inputs.
 *
 *   npx tsx benchmarks/src/codec-noise.ts
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { analyzeClip, listSimilaritySpaces } from '@earshot/core';
import { realSamples } from '@earshot/fixtures';

const root = path.resolve(import.meta.dirname, '../..');
const dir = path.join(process.env.TWIN_CACHE ?? path.join(root, 'benchmarks/.cache/twins'), 'reference');
fs.mkdirSync(dir, { recursive: true });
const needs = [...new Set([...listSimilaritySpaces().flatMap((s) => s.inputs), 'rhythm.onset_rate'])].filter(
  (p) => !p.startsWith('rhythm.'),
);
const out: Record<string, { original: unknown; twin: unknown }> = {};
for (const sample of realSamples()) {
  const wav = path.join(dir, `${sample.name}.wav`);
  const mp3 = path.join(dir, `${sample.name}.twin.mp3`);
  if (!fs.existsSync(wav))
    execFileSync('ffmpeg', [
      '-v',
      'error',
      '-y',
      '-i',
      sample.file,
      '-ac',
      '1',
      '-ar',
      '44100',
      '-c:a',
      'pcm_s16le',
      wav,
    ]);
  if (!fs.existsSync(mp3))
    execFileSync('ffmpeg', [
      '-v',
      'error',
      '-y',
      '-i',
      wav,
      '-af',
      'volume=-3dB',
      '-c:a',
      'libmp3lame',
      '-b:a',
      '128k',
      mp3,
    ]);
  // The whole analysis (rhythm too) when FULL is set, else the space's lean one.
  const analyse = async (file: string) =>
    process.env.FULL
      ? (await analyzeClip(file, { float32Fft: false, maxSeconds: 600 })).tree
      : (await analyzeClip(file, { needs, frameStride: 1, float32Fft: false, maxSeconds: 600 })).tree;
  out[sample.name] = { original: await analyse(wav), twin: await analyse(mp3) };
}
fs.writeFileSync(
  path.join(process.env.TWIN_CACHE ?? path.join(root, 'benchmarks/.cache/twins'), 'codec-noise.json'),
  JSON.stringify(out),
);
process.stdout.write(`analysed ${Object.keys(out).length} recordings and their twins\n`);
