import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { realSamples } from '@earshot/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeMono } from '../media/decode.ts';
import { DEFAULT_SIMILARITY_SPACE } from '../similarity/spaces/registry.ts';
import { compareStride, cosine, quantile, type StrideComparison } from '../testing/frame-stride.ts';
import { CLIP_FRAME_STRIDE } from './analyze-clip.ts';
import { analyzeSubset, planSubset } from './analyze-subset.ts';
import { loadFloat32Fft } from './fft-f32.ts';

/**
 * A clip query's lean analysis reads its costly series on every CLIP_FRAME_STRIDE-th frame (fewer
 * on short clips). Over the 40 real recordings (drums, pads, hats, tabla, loops, ≤ 10 s like a
 * clip) and four 10 s clips of one music mix (the full stride; the same material, so close to each
 * other), its statistics stay close to the full analysis's, and each strided vector still finds
 * its own full vector first among all of them (the catalogue holds full analyses). The strided
 * analysis takes its spectra from the float32 FFT, as a clip query does.
 */

const GENERATED = fileURLToPath(new URL('../../../../fixtures/generated/', import.meta.url));
const comparisons: Array<{ name: string } & StrideComparison> = [];

function compare(name: string, samples: Float32Array, sampleRate: number) {
  const c = compareStride(samples, sampleRate, DEFAULT_SIMILARITY_SPACE, CLIP_FRAME_STRIDE, true);
  comparisons.push({ name, ...c });
}

beforeAll(async () => {
  await loadFloat32Fft();
  for (const sample of realSamples()) {
    const signal = await decodeMono(sample.file, { maxSeconds: 10 });
    compare(sample.name, signal.samples, signal.sampleRate);
  }
  const mix = await decodeMono(path.join(GENERATED, 'music-mix-60s.wav'));
  const clip = 10 * mix.sampleRate;
  // The mix repeats itself after 40 s (its 40–50 s clip is a twin of its first, cosine 0.99998):
  // four distinct clips.
  for (let at = 0; at < 4 * clip; at += clip) {
    compare(`music-mix ${at / mix.sampleRate} s`, mix.samples.subarray(at, at + clip), mix.sampleRate);
  }
}, 300_000);

describe('frameStride of the lean analysis (clip queries)', () => {
  it('keeps the space statistics close to the full analysis', () => {
    const strided = comparisons.filter((c) => c.stride > 1);
    expect(comparisons.length).toBe(44);
    expect(strided.filter((c) => c.stride === CLIP_FRAME_STRIDE).length).toBeGreaterThanOrEqual(4);
    const errors = strided.flatMap((c) => c.relativeErrors);
    // Measured 2026-11-24 (docs/similarity.md has the table by stride).
    expect(quantile(errors, 0.5)).toBeLessThan(0.03);
    expect(quantile(errors, 0.9)).toBeLessThan(0.3);
    for (const c of comparisons) expect(cosine(c.strided, c.full), c.name).toBeGreaterThan(0.97);
  });

  it('finds each recording first among the full analyses', () => {
    for (const [i, c] of comparisons.entries()) {
      const scores = comparisons.map((other) => cosine(c.strided, other.full));
      const best = scores.indexOf(Math.max(...scores));
      expect(comparisons[best].name, c.name).toBe(c.name);
      expect(i).toBe(best);
    }
  });

  it('changes nothing with a stride of 1, and can fail: a stride moves the strided series', async () => {
    const sample = realSamples().find((s) => s.name === 'loop_amen_full');
    if (!sample) throw new Error('loop_amen_full is missing');
    const { samples, sampleRate } = await decodeMono(sample.file, { maxSeconds: 10 });
    const plan = planSubset(['lowlevel.mfcc.mean', 'lowlevel.spectral_centroid.dmean']);
    const full = analyzeSubset(samples, sampleRate, plan);
    expect(analyzeSubset(samples, sampleRate, plan, { frameStride: 1 })).toEqual(full);
    const strided = analyzeSubset(samples, sampleRate, plan, { frameStride: 4 });
    const lowlevel = (tree: typeof full) => tree.lowlevel as Record<string, Record<string, unknown>>;
    // The spectral centroid is read on every frame (its dmean needs neighbours): unchanged.
    expect(lowlevel(strided).spectral_centroid).toEqual(lowlevel(full).spectral_centroid);
    // MFCC comes from every 4th frame only: close, not equal.
    expect(lowlevel(strided).mfcc.mean).not.toEqual(lowlevel(full).mfcc.mean);
  }, 60_000);
});
