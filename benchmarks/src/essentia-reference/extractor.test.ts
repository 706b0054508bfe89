import path from 'node:path';
import { decodeMono } from '@earshot/core';
import { realSamples } from '@earshot/fixtures';
import { describe, expect, it } from 'vitest';
import { EssentiaJs } from './essentia-js.ts';
import { referenceTree } from './extractor.ts';
import { lowLevelBanks } from './filterbank.ts';
import { REFERENCE_CACHE_DIR, toolVersion } from './reference-folder.ts';

type Tree = Record<string, any>;

/** The families issue 37 found disagreeing, and the chains' other kernels: each must give the native values. */
const FAMILIES = [
  'lowlevel.average_loudness',
  'lowlevel.barkbands',
  'lowlevel.dynamic_complexity',
  'lowlevel.erbbands',
  'lowlevel.gfcc',
  'lowlevel.melbands',
  'lowlevel.melbands96',
  'lowlevel.mfcc',
  'lowlevel.sound_stop_frame',
  'lowlevel.spectral_centroid',
  'lowlevel.spectral_contrast_coeffs',
  'lowlevel.spectral_contrast_valleys',
  'lowlevel.spectral_crest',
  'lowlevel.spectral_energyband_low',
  'lowlevel.spectral_entropy',
  'lowlevel.spectral_flatness_db',
  'lowlevel.spectral_flux',
  'rhythm.beats_loudness',
  'rhythm.beats_loudness_band_ratio',
  'rhythm.bpm',
  'sfx.effective_duration',
  'sfx.oddtoevenharmonicenergyratio',
  'sfx.temporal_centroid',
  'sfx.tristimulus',
  'tonal.hpcp',
  'tonal.hpcp_entropy',
  'tonal.tuning_frequency',
];

const at = (tree: Tree, dotted: string) => dotted.split('.').reduce<any>((node, key) => node?.[key], tree);

/** Every stats block of `ours` has the native block's statistics and vector length at the same path. */
function sameShape(ours: Tree, native: Tree, where: string): void {
  for (const [key, value] of Object.entries(ours)) {
    const name = `${where}.${key}`;
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      expect(native[key], `${name} in the native tree`).toBeTypeOf('object');
      if ('mean' in value) {
        expect(Object.keys(value).sort(), name).toEqual(Object.keys(native[key]).sort());
        const length = (v: unknown) => (Array.isArray(v) ? v.length : 'scalar');
        expect(length(value.mean), name).toBe(length(native[key].mean));
      } else sameShape(value, native[key], name);
    }
  }
}

describe('referenceTree (essentia.js chains of the FreesoundExtractor)', () => {
  const essentia = new EssentiaJs();
  // The banks of the last tool run when there is one; read out of essentia.js otherwise (about a minute).
  const banks = lowLevelBanks(essentia, path.join(REFERENCE_CACHE_DIR, `filterbanks-${toolVersion()}.json`));

  for (const name of ['bd_808', 'tbd_pad_1']) {
    it(`gives ${name} the native extractor's shape and values`, async () => {
      const sample = realSamples().find((s) => s.name === name);
      if (!sample) throw new Error(`no calibration recording ${name}`);
      const { samples, sampleRate } = await decodeMono(sample.file);
      const tree = referenceTree(essentia, banks, samples, sampleRate);
      for (const group of ['lowlevel', 'rhythm', 'sfx', 'tonal'])
        sameShape(tree[group], sample.reference[group], group);
      for (const family of FAMILIES) {
        const ours = at(tree, family);
        const native = at(sample.reference, family);
        const pairs: [string, unknown, unknown][] =
          typeof native === 'number'
            ? [[family, ours, native]]
            : (['mean', 'max'] as const).map((stat) => [`${family}.${stat}`, ours?.[stat], native[stat]]);
        for (const [leaf, o, n] of pairs) {
          const os = ([] as number[]).concat(o as number);
          const ns = ([] as number[]).concat(n as number);
          expect(os.length, leaf).toBe(ns.length);
          // Within 10⁻³ relative; a dimension under 1% of the vector's largest on that 1% scale.
          const scale = 0.01 * Math.max(...ns.map(Math.abs));
          ns.forEach((v, k) => {
            expect(Math.abs(os[k] - v), `${leaf}[${k}]: ${os[k]} against ${v}`).toBeLessThanOrEqual(
              1e-3 * Math.max(Math.abs(v), scale) + 1e-9,
            );
          });
        }
      }
    });
  }
});
