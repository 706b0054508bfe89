/**
 * How close a clip query's subsampled statistics (`frameStride`, search by example) stay to the
 * full analysis: the relative error of the default space's input statistics, the cosine between
 * the two unit vectors, and whether the strided vector still finds its own sound first among all
 * the full vectors. Sounds: every good generated fixture, the 40 real recordings (both cut to 10 s)
 * and the music mix's first four 10 s clips (it repeats after 40 s); the rows count only those
 * long enough to be strided (see MIN_STRIDED_FRAMES), the ranking is among all of them. Not a
 * timing benchmark (no lock needed).
 *
 *   npx tsx benchmarks/src/clip-stride.ts [--strides 2,4,8]
 */
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_SIMILARITY_SPACE, decodeClipInProcess, decodeMono, probeFile } from '@earshot/core';
import { compareStride, cosine, quantile } from '@earshot/core/testing';
import { realSamples } from '@earshot/fixtures';

const root = path.resolve(import.meta.dirname, '../..');
const dir = path.join(root, 'fixtures/generated');
const arg = process.argv.indexOf('--strides');
const strides = (arg > 0 ? process.argv[arg + 1] : '2,4,8').split(',').map(Number);
const space = DEFAULT_SIMILARITY_SPACE;

async function decode(file: string): Promise<Float32Array | undefined> {
  const own = await decodeClipInProcess(file, { sampleRate: 44_100, maxSeconds: 10 });
  if (own) return own.samples;
  try {
    const probe = await probeFile(file, { md5: false });
    return (await decodeMono(file, { probe, maxSeconds: 10 })).samples;
  } catch {
    return undefined;
  }
}

const files = fs
  .readdirSync(dir)
  .filter((name) => !/^(bad-|silence|music-mix)/.test(name) && /\.(wav|flac|mp3|ogg|aiff)$/.test(name))
  .sort();
const signals: Array<{ name: string; samples: Float32Array }> = [];
for (const name of files) {
  const samples = await decode(path.join(dir, name));
  // Under 0.5 s a clip has too few frames for statistics (and the API's clips are seconds long).
  if (samples && samples.length >= 22_050) signals.push({ name, samples });
}
for (const sample of realSamples()) {
  const samples = await decode(sample.file);
  if (samples && samples.length >= 22_050) signals.push({ name: sample.name, samples });
}
const mixWhole = (await decodeMono(path.join(dir, 'music-mix-60s.wav'))).samples;
for (let k = 0; k < 4; k++) {
  signals.push({ name: `music-mix ${10 * k} s`, samples: mixWhole.subarray(k * 441_000, (k + 1) * 441_000) });
}

const rows: string[] = [];
const worst: string[] = [];
for (const stride of strides) {
  const errors: number[] = [];
  const perSound: number[] = [];
  const cosines: number[] = [];
  const full: Float32Array[] = [];
  const strided: Float32Array[] = [];
  const applied = new Map<number, number>();
  let stridedSounds = 0;
  for (const { samples } of signals) {
    const c = compareStride(samples, 44_100, space, stride);
    full.push(c.full);
    strided.push(c.strided);
    applied.set(c.stride, (applied.get(c.stride) ?? 0) + 1);
    if (c.stride === 1) {
      cosines.push(Number.NaN);
      continue;
    }
    stridedSounds++;
    errors.push(...c.relativeErrors);
    perSound.push(quantile(c.relativeErrors, 0.5));
    cosines.push(cosine(c.strided, c.full));
  }
  const real = cosines.filter((x) => !Number.isNaN(x));
  const low = cosines.indexOf(quantile(real, 0));
  worst.push(`stride ${stride}: lowest cosine ${cosines[low].toFixed(4)} for ${signals[low].name}`);
  const spread = [...applied]
    .sort((a, b) => a[0] - b[0])
    .map(([k, n]) => `${n}×${k}`)
    .join(', ');
  // Each strided sound's own full vector first among all the full vectors, or within 1e-4 of
  // the best (a twin: the fixtures hold the same sound at other bit depths, rates, levels).
  let first = 0;
  let firstOrTwin = 0;
  strided.forEach((query, i) => {
    if (Number.isNaN(cosines[i])) return;
    const own = cosine(query, full[i]);
    const best = Math.max(...full.map((v, j) => (j === i ? -2 : cosine(query, v))));
    if (own > best) first++;
    if (own >= best - 1e-4) firstOrTwin++;
  });
  rows.push(
    `| ${stride} | ${signals.length} (${spread}) | ${stridedSounds} | ${(100 * quantile(errors, 0.5)).toFixed(2)} % | ${(100 * quantile(errors, 0.9)).toFixed(1)} % | ${(100 * quantile(perSound, 1)).toFixed(1)} % | ${quantile(real, 0.5).toFixed(4)} | ${quantile(real, 0).toFixed(4)} | ${first} | ${firstOrTwin} |`,
  );
}
console.log(
  `| frame stride asked | sounds (count × stride applied) | strided sounds | median relative error | p90 | worst sound's median | median cosine | min cosine | strided sounds ranking their own first | first or within 1e-4 |\n|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n${rows.join('\n')}\n\n${worst.join('; ')}`,
);
