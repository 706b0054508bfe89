import { type RealSample, realSamples } from '@earshot/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeClipInProcess } from '../media/clip-decode/index.ts';
import { decodeMono } from '../media/decode.ts';
import { readDescriptor } from '../similarity/analysis-tree.ts';
import { DEFAULT_SOUND_TARGET_DESCRIPTORS } from '../similarity/descriptor-target.ts';
import { exampleAnalysisNeeds } from '../similarity/example-query.ts';
import { FREESOUND_CLASSIC } from '../similarity/spaces/freesound-classic.ts';
import { similarityVectorFromAnalysis } from '../similarity/spaces/registry.ts';
import { analyzeSignal } from './analyze.ts';
import { analyzeClip, CLIP_FRAME_STRIDE } from './analyze-clip.ts';
import { analyzeSubset, planSubset, UnsupportedSubsetError } from './analyze-subset.ts';
import { ClipAnalysisPool } from './clip-pool.ts';
import { loadFloat32Fft } from './fft-f32.ts';
import type { VariantATree } from './types.ts';
import { ENVELOPE_SFX, LOWLEVEL_SCALARS, LOWLEVEL_VECTORS } from './variant-a.ts';

/**
 * The lean analysis gives, for every descriptor it computes, exactly the value the full analysis
 * gives (same functions, same frames): checked on real recordings of different kinds (a pad, a
 * drum loop, a hi-hat, a bass drum), for what search by example asks and for each series alone
 * (a series computed without the others it usually shares a frame with).
 */

const NAMES = ['tbd_pad_1', 'loop_amen_full', 'hat_metal', 'bd_808'];

interface Decoded {
  name: string;
  samples: Float32Array;
  sampleRate: number;
  full: VariantATree;
}

const decoded: Decoded[] = [];
let padFile: string;

beforeAll(async () => {
  const byName = new Map(realSamples().map((s: RealSample) => [s.name, s]));
  for (const name of NAMES) {
    const sample = byName.get(name);
    if (!sample) throw new Error(`real sample ${name} is missing`);
    if (name === 'tbd_pad_1') padFile = sample.file;
    // At most 10 s, like a search-by-example clip (the amen loop is longer than that).
    const signal = await decodeMono(sample.file, { maxSeconds: 10 });
    const full = (await analyzeSignal(signal.samples, signal.sampleRate)).variantA;
    decoded.push({ name, samples: signal.samples, sampleRate: signal.sampleRate, full });
  }
}, 120_000);

const group = (tree: VariantATree, name: string) => tree[name] as VariantATree;

describe('lean analysis for search by example', () => {
  it('gives the values of the full analysis for everything a clip is compared by', () => {
    const needs = exampleAnalysisNeeds();
    const plan = planSubset(needs);
    expect(plan.unsupported).toEqual([]);
    for (const { name, samples, sampleRate, full } of decoded) {
      const lean = analyzeSubset(samples, sampleRate, plan);
      for (const path of needs) {
        const value = readDescriptor(lean, path);
        expect(value, `${name} ${path}`).toBeDefined();
        expect(value, `${name} ${path}`).toEqual(readDescriptor(full, path));
      }
      // The whole statistics block of each computed series, not just the statistics asked for.
      for (const series of plan.series) {
        expect(group(lean, 'lowlevel')[series], `${name} ${series}`).toEqual(group(full, 'lowlevel')[series]);
      }
      expect(similarityVectorFromAnalysis(FREESOUND_CLASSIC, lean)).toEqual(
        similarityVectorFromAnalysis(FREESOUND_CLASSIC, full),
      );
      expect(lean.metadata).toEqual(full.metadata);
      expect(group(lean, 'sfx').duration).toBe(group(full, 'sfx').duration);
    }
  });

  it('computes nothing it was not asked for', () => {
    const { samples, sampleRate } = decoded[0];
    const lean = analyzeSubset(samples, sampleRate, planSubset(exampleAnalysisNeeds(FREESOUND_CLASSIC)));
    expect(lean.tonal).toBeUndefined();
    expect(lean.rhythm).toBeUndefined();
    const lowlevel = group(lean, 'lowlevel');
    for (const skipped of ['gfcc', 'melbands96', 'erbbands', 'spectral_energyband_low', 'pitch']) {
      expect(lowlevel[skipped], skipped).toBeUndefined();
    }
    // The space reads no envelope value; the descriptor fallback does (sfx.logattacktime).
    expect(group(lean, 'sfx').logattacktime).toBeUndefined();
    expect(Object.keys(lowlevel).sort()).toEqual(
      [...planSubset(exampleAnalysisNeeds(FREESOUND_CLASSIC)).series].sort(),
    );
  });

  it('gives each series computed alone the value of the full analysis', () => {
    const { samples, sampleRate, full } = decoded[1];
    for (const series of [...LOWLEVEL_SCALARS, ...LOWLEVEL_VECTORS]) {
      const lean = analyzeSubset(samples, sampleRate, planSubset([`lowlevel.${series}`]));
      expect(group(lean, 'lowlevel')[series], series).toEqual(group(full, 'lowlevel')[series]);
    }
    for (const series of ['inharmonicity', 'oddtoevenharmonicenergyratio', 'tristimulus']) {
      const lean = analyzeSubset(samples, sampleRate, planSubset([`sfx.${series}`]));
      expect(group(lean, 'sfx')[series], series).toEqual(group(full, 'sfx')[series]);
    }
    const envelope = analyzeSubset(samples, sampleRate, planSubset(['sfx.logattacktime']));
    for (const name of ENVELOPE_SFX)
      expect(group(envelope, 'sfx')[name], name).toBe(group(full, 'sfx')[name]);
  });

  it('names what it cannot compute, so callers run the full analysis', () => {
    const plan = planSubset([
      'lowlevel.mfcc.mean[3]',
      'tonal.hpcp.mean',
      'rhythm.bpm',
      'lowlevel.average_loudness',
    ]);
    expect([...plan.series]).toEqual(['mfcc']);
    expect(plan.unsupported).toEqual(['tonal.hpcp.mean', 'rhythm.bpm', 'lowlevel.average_loudness']);
    const { samples, sampleRate } = decoded[0];
    expect(() => analyzeSubset(samples, sampleRate, plan)).toThrow(/tonal\.hpcp\.mean, rhythm\.bpm/);
    expect(() => analyzeSubset(samples, sampleRate, plan)).toThrow(UnsupportedSubsetError);
    // The descriptor fallback's own names are all within the lean analysis.
    expect(planSubset(DEFAULT_SOUND_TARGET_DESCRIPTORS).unsupported).toEqual([]);
  });
});

describe('analyzeClip with needs', () => {
  it('runs the lean analysis in this thread and in the pool, and the whole one when a need is outside it', async () => {
    const needs = exampleAnalysisNeeds();
    // The clip path decodes this file in-process (clip-decode tests hold that decode to ffmpeg's).
    const clip = await decodeClipInProcess(padFile, { sampleRate: 44_100, maxSeconds: 10 });
    expect(clip).toBeDefined();
    const signal = clip?.samples ?? new Float32Array(0);
    // A clip's lean analysis reads every CLIP_FRAME_STRIDE-th frame for its costly series, its
    // spectra from the float32 FFT.
    await loadFloat32Fft();
    const exact = await analyzeClip(padFile, { needs, maxSeconds: 10, frameStride: 1, float32Fft: false });
    expect(exact.tree).toEqual(analyzeSubset(signal, 44_100, planSubset(needs)));
    const expected = analyzeSubset(signal, 44_100, planSubset(needs), {
      frameStride: CLIP_FRAME_STRIDE,
      float32Fft: true,
    });
    const here = await analyzeClip(padFile, { needs, maxSeconds: 10 });
    expect(here.lean).toBe(true);
    expect(here.tree).toEqual(expected);
    const pool = new ClipAnalysisPool(1);
    try {
      const inPool = await pool.analyze(padFile, { needs, maxSeconds: 10 });
      expect(inPool.lean).toBe(true);
      expect(inPool.tree).toEqual(expected);
    } finally {
      await pool.close();
    }
    const whole = await analyzeClip(padFile, { needs: ['tonal.hpcp.mean'], maxSeconds: 10 });
    expect(whole.lean).toBe(false);
    expect(whole.tree).toEqual((await analyzeSignal(signal, 44_100)).variantA);
  });
});
