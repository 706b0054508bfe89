import fs from 'node:fs';
import path from 'node:path';
import { ESSENTIA_REFERENCE_DIR } from '@earshot/fixtures';
import { describe, expect, it } from 'vitest';
import {
  type CodecPair,
  calibrateClassic,
  codecWeights,
  extractClassicInputs,
  MAX_CODEC_WEIGHT,
} from '../../testing/freesound-classic.calibration.ts';
import codecPairs from '../../testing/freesound-classic.codec.json' with { type: 'json' };
import { referenceAnalyses, referenceNames } from '../../testing/similarity.ts';
import {
  IncompleteAnalysisError,
  InvalidVectorError,
  UnknownSimilaritySpaceError,
  VectorDimensionError,
} from '../errors.ts';
import { CLASSIC_CONSTANTS } from './freesound-classic.constants.ts';
import { CLASSIC_FEATURES } from './freesound-classic.features.ts';
import {
  DEFAULT_SIMILARITY_SPACE,
  getSimilaritySpace,
  listSimilaritySpaces,
  normalizeSpaceVector,
  similarityVectorFromAnalysis,
} from './registry.ts';

const nativeDir = ESSENTIA_REFERENCE_DIR;

function cosine(a: Float32Array, b: Float32Array): number {
  return a.reduce((sum, v, i) => sum + v * b[i], 0);
}

describe('similarity space registry', () => {
  it('defaults to freesound_classic, 100 dimensions', () => {
    expect(DEFAULT_SIMILARITY_SPACE).toBe('freesound_classic');
    expect(getSimilaritySpace().name).toBe('freesound_classic');
    expect(getSimilaritySpace('freesound_classic').dimension).toBe(100);
    expect(listSimilaritySpaces().map((s) => s.name)).toEqual(['freesound_classic']);
  });

  it('refuses an unknown space with a 400 that names it and the known ones', () => {
    const error = (() => {
      try {
        getSimilaritySpace('foo');
      } catch (e) {
        return e;
      }
    })() as UnknownSimilaritySpaceError;
    expect(error).toBeInstanceOf(UnknownSimilaritySpaceError);
    expect(error.status).toBe(400);
    expect(error.message).toBe('Unknown similarity space "foo"; known: freesound_classic');
  });

  it('refuses vectors of the wrong dimension, with NaN, or all zeros', () => {
    expect(() => normalizeSpaceVector('freesound_classic', new Array(99).fill(1))).toThrow(
      new VectorDimensionError('freesound_classic', 100, 99),
    );
    expect(() => normalizeSpaceVector('freesound_classic', new Array(99).fill(1))).toThrow(
      'Vector for freesound_classic must have 100 dimensions, got 99',
    );
    const withNaN = new Array(100).fill(1);
    withNaN[42] = Number.NaN;
    expect(() => normalizeSpaceVector('freesound_classic', withNaN)).toThrow(InvalidVectorError);
    expect(() => normalizeSpaceVector('freesound_classic', withNaN)).toThrow('dimension 42');
    expect(() => normalizeSpaceVector('freesound_classic', new Array(100).fill(0))).toThrow('all zeros');
    expect(() => normalizeSpaceVector('nope', new Array(100).fill(1))).toThrow(UnknownSimilaritySpaceError);
  });

  it('L2-normalizes a given vector', () => {
    const v = normalizeSpaceVector('freesound_classic', new Array(100).fill(3));
    expect(v[0]).toBeCloseTo(0.1, 6);
  });
});

describe('freesound_classic', () => {
  it('maps each reference analysis to a finite unit vector of 100 dimensions', () => {
    for (const name of referenceNames) {
      const v = similarityVectorFromAnalysis('freesound_classic', referenceAnalyses[name]);
      expect(v).toHaveLength(100);
      expect(v.every(Number.isFinite)).toBe(true);
      expect(cosine(v, v)).toBeCloseTo(1, 5);
    }
  });

  it('uses fixed constants that are exactly what calibration on the reference set gives', () => {
    const { center, scale } = calibrateClassic(Object.values(referenceAnalyses));
    expect(CLASSIC_CONSTANTS).toHaveLength(CLASSIC_FEATURES.length);
    expect(CLASSIC_CONSTANTS.map(([c]) => c)).toEqual(center);
    expect(CLASSIC_CONSTANTS.map(([, s]) => s)).toEqual(scale);
    expect(scale.every((s) => s > 0)).toBe(true);
  });

  it('weights each input by its robustness to a re-encoding, exactly as calibration on the codec pairs gives', () => {
    const pairs = Object.values(codecPairs as Record<string, CodecPair>);
    expect(Object.keys(codecPairs).sort()).toEqual([...referenceNames].sort());
    const weights = codecWeights(calibrateClassic(Object.values(referenceAnalyses)), pairs);
    expect(CLASSIC_CONSTANTS.map(([, , w]) => w)).toEqual(weights);
    expect(weights.every((w) => w > 0 && w <= MAX_CODEC_WEIGHT)).toBe(true);
    // The codec's low-pass (about 16 kHz at 128k) cuts the top bark band: it weighs least of the bands.
    const bands = CLASSIC_FEATURES.flatMap((f, i) =>
      f.path === 'lowlevel.barkbands.mean' ? [weights[i]] : [],
    );
    expect(Math.min(...bands)).toBe(bands[26]);
  });

  it.skipIf(!fs.existsSync(nativeDir))('keeps an extract that matches the native reference JSONs', () => {
    const files = fs.readdirSync(nativeDir).filter((f) => f.endsWith('.json'));
    expect(files).toHaveLength(referenceNames.length);
    for (const file of files) {
      const tree = JSON.parse(fs.readFileSync(path.join(nativeDir, file), 'utf8'));
      expect(extractClassicInputs(tree)).toEqual(referenceAnalyses[file.replace(/\.json$/, '')]);
    }
  });

  it('places like with like among the reference sounds', () => {
    const vectors = Object.fromEntries(
      referenceNames.map((name) => [
        name,
        similarityVectorFromAnalysis('freesound_classic', referenceAnalyses[name]),
      ]),
    );
    const nearest = (name: string) =>
      referenceNames
        .filter((other) => other !== name)
        .sort((a, b) => cosine(vectors[name], vectors[b]) - cosine(vectors[name], vectors[a]))[0];
    expect(nearest('tbd_pad_1')).toBe('tbd_pad_2');
    expect(nearest('tbd_pad_2')).toBe('tbd_pad_1');
    for (const kick of ['bd_808', 'bd_jazz', 'bd_fat', 'bd_klub']) {
      expect(nearest(kick)).toMatch(/^(bd_|drum_bass|tabla_ghe)/);
    }
    // A hi-hat is a pair of cymbals: another hat or a cymbal is its like.
    expect(nearest('hat_cab')).toMatch(/^(hat_|elec_cymbal)/);
  });

  it('refuses an analysis that lacks its inputs, naming them', () => {
    const tree = structuredClone(referenceAnalyses.bd_808) as { lowlevel: Record<string, unknown> };
    delete tree.lowlevel.mfcc;
    const attempt = () => similarityVectorFromAnalysis('freesound_classic', tree);
    expect(attempt).toThrow(IncompleteAnalysisError);
    expect(attempt).toThrow('lowlevel.mfcc.mean[0]');
  });
});
