// Issue #17: a level change and a lossy re-encoding must move a sound less than a change of key
// or tempo. Real ffmpeg, real analyses (the lean analysis of the space's inputs on every frame, in float64,
// which gives the values the whole analysis gives them), every space the project has.
import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { analyzeClip } from '../../descriptors/analyze-clip.ts';
import { makeTempDir } from '../../testing/audio.ts';
import { makeTwinSet, TWIN_BASES, TWIN_BASES_FIRST, type TwinFiles } from '../../testing/twin-set.ts';
import type { AnalysisTree } from '../analysis-tree.ts';
import { listSimilaritySpaces, similarityVectorFromAnalysis } from './registry.ts';

type Variant = 'original' | 'quieter' | 'twin' | 'otherKey' | 'otherTempo';
const VARIANTS: Variant[] = ['original', 'quieter', 'twin', 'otherKey', 'otherTempo'];

let set: TwinFiles[] = [];
const trees = new Map<string, AnalysisTree>();

beforeAll(async () => {
  const dir = makeTempDir('earshot-twins-');
  set = makeTwinSet(dir);
  const needs = [...new Set(listSimilaritySpaces().flatMap((space) => space.inputs))];
  for (const files of set) {
    for (const variant of VARIANTS)
      trees.set(
        files[variant],
        (await analyzeClip(files[variant], { needs, frameStride: 1, float32Fft: false })).tree,
      );
  }
  fs.rmSync(dir, { recursive: true, force: true });
}, 1_800_000);

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i], 0);

/**
 * For each base of `among` (the whole set by default), queries with `variant` against every
 * original and every other-key and other-tempo version of those bases; returns the bases whose own
 * original did not come first.
 */
function misses(space: string, variant: Variant, among: TwinFiles[] = set): string[] {
  const vector = (file: string) => similarityVectorFromAnalysis(space, trees.get(file) as AnalysisTree);
  const candidates = among.flatMap((files) =>
    (['original', 'otherKey', 'otherTempo'] as const).map((kind) => ({
      name: files.base.name,
      kind,
      vector: vector(files[kind]),
    })),
  );
  return among.flatMap((files) => {
    const query = vector(files[variant]);
    const ranked = candidates
      .map((c) => ({ ...c, score: dot(query, c.vector) }))
      .sort((a, b) => b.score - a.score);
    const first = ranked[0];
    return first.name === files.base.name && first.kind === 'original'
      ? []
      : [`${files.base.name} (first: ${first.name} ${first.kind})`];
  });
}

const firstSet = () => {
  const names = new Set(TWIN_BASES_FIRST.map((b) => b.name));
  return set.filter((files) => names.has(files.base.name));
};

describe.each(listSimilaritySpaces().map((space) => space.name))('space %s: the same recording', (space) => {
  it('the widened set holds the first set and over a hundred bases', () => {
    expect(set).toHaveLength(TWIN_BASES.length);
    expect(set.length).toBeGreaterThanOrEqual(100);
    expect(firstSet()).toHaveLength(TWIN_BASES_FIRST.length);
  });

  it('3 dB quieter: the original is the nearest neighbour for every base (level does not move a vector)', () => {
    expect(misses(space, 'quieter')).toEqual([]);
  });

  // Issue #17 asks for 98%. Measured: 73% before the space was made level-free, 84-89% after, 82%
  // (27 of 33) once the spectral descriptors took the reference extractor's definitions, 94% (31 of
  // 33) with the reference's frame count and the float mix-down, 100% (33 of 33; 113 of 117 on the
  // widened set) with each input weighted by its robustness to a re-encoding (calibrated on the 40
  // reference recordings, not on this set), 117 of 117 once silent frames were analysed as the
  // reference analyses them, as faint noise (the four click tracks that missed: a 128k mp3 turns
  // each click into a ringing burst, which counted for more while the silence between clicks read as
  // zero crossings and spectra of zeros; docs/similarity.md, "Same recording").
  it('3 dB quieter and 128k mp3, first set: the original is first for every one of the 33 bases', () => {
    expect(misses(space, 'twin', firstSet())).toEqual([]);
  });

  it('3 dB quieter and 128k mp3, widened set: the original is first for every one of the 117 bases', () => {
    expect(misses(space, 'twin')).toEqual([]);
  });
});
