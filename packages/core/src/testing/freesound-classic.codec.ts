// Regenerates the codec pairs the input weights are calibrated on:
// `npx tsx packages/core/src/testing/freesound-classic.codec.ts`. Kept with the test tooling, not the
// space, because it reads the reference recordings through @earshot/fixtures.
// For each of the 40 reference recordings (CC0 Sonic Pi samples, npm supersonic-scsynth-samples), the real
// ffmpeg writes the recording and its twin (3 dB quieter, 128k mp3), earshot's lean analysis of the space's
// inputs reads both on every frame in float64 (the values a stored analysis has), and the inputs of both go
// to freesound-classic.codec.json. Rerun it (then freesound-classic.calibrate.ts) when the analysis of an
// input changes.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { realSamples } from '@earshot/fixtures';
import { analyzeClip } from '../descriptors/analyze-clip.ts';
import { CLASSIC_PATHS } from '../similarity/spaces/freesound-classic.features.ts';
import {
  CODEC_PAIR_GAIN_DB,
  CODEC_PAIR_MP3_BITRATE,
  extractClassicInputs,
} from './freesound-classic.calibration.ts';

const here = path.dirname(new URL(import.meta.url).pathname);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-codec-pairs-'));
const ffmpeg = (args: string[]) => execFileSync('ffmpeg', ['-v', 'error', '-y', ...args]);
const analyse = async (file: string) =>
  extractClassicInputs(
    (await analyzeClip(file, { needs: CLASSIC_PATHS, frameStride: 1, float32Fft: false, maxSeconds: 3600 }))
      .tree,
  );

const pairs: Record<string, unknown> = {};
for (const sample of realSamples()) {
  const wav = path.join(dir, `${sample.name}.wav`);
  const mp3 = path.join(dir, `${sample.name}.twin.mp3`);
  ffmpeg(['-i', sample.file, '-ac', '1', '-ar', '44100', '-c:a', 'pcm_s16le', wav]);
  ffmpeg([
    '-i',
    wav,
    '-af',
    `volume=${CODEC_PAIR_GAIN_DB}dB`,
    '-c:a',
    'libmp3lame',
    '-b:a',
    CODEC_PAIR_MP3_BITRATE,
    mp3,
  ]);
  pairs[sample.name] = { original: await analyse(wav), twin: await analyse(mp3) };
}
fs.rmSync(dir, { recursive: true, force: true });
fs.writeFileSync(path.join(here, 'freesound-classic.codec.json'), `${JSON.stringify(pairs)}\n`);
process.stdout.write(`wrote ${Object.keys(pairs).length} codec pairs\n`);
