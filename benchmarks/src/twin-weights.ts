/**
 * Variants of freesound_classic measured on the twin set (issue 17), from the whole analyses
 * twin-analyses.ts caches: each variant's inputs calibrated on the 40 reference analyses as the
 * space is (median, IQR/1.349; rhythm inputs optionally on the references with a beat only), clipped
 * at ±5, then optionally weighted per input before the L2 norm. Prints, for the first set and the
 * widened one, how many twins (3 dB quieter 128k mp3) and quieter copies rank their original first
 * among every base's original, other-key and other-tempo version, and the misses. With
 * DIAG=base,base it also prints which inputs the twin and the other tempo move most.
 * Families (for "families balanced": each family the same total weight, 1/√n per input):
 * MFCC means, MFCC variances (one "timbre" family with TIMBRE=1), bark bands, spectral contrast,
 * spectral shape means, change over time (variances and dmeans), rhythm.
 *
 * The codec variants read the codec pairs codec-noise.ts caches (with FULL=1 for the rhythm ones).
 *
 *   npx tsx benchmarks/src/twin-weights.ts [label filter]
 */
import fs from 'node:fs';
import path from 'node:path';
import { TWIN_BASES, TWIN_BASES_FIRST } from '@earshot/core/testing';
import { ESSENTIA_REFERENCE_DIR } from '@earshot/fixtures';
import { type AnalysisTree, readDescriptor } from '../../packages/core/src/similarity/analysis-tree.ts';
import {
  applyTransform,
  CLASSIC_FEATURES,
  type ClassicFeature,
  LEVEL_PATH,
  removeLevel,
} from '../../packages/core/src/similarity/spaces/freesound-classic.features.ts';

const root = path.resolve(import.meta.dirname, '../..');
const cache = process.env.TWIN_CACHE ?? path.join(root, 'benchmarks/.cache/twins');
const VARIANTS = ['original', 'quieter', 'twin', 'otherKey', 'otherTempo'] as const;
type Kind = (typeof VARIANTS)[number];
const suffix: Record<Kind, string> = {
  original: '.wav',
  quieter: '.quieter.wav',
  twin: '.twin.mp3',
  otherKey: '.key.wav',
  otherTempo: '.tempo.wav',
};
const stem = (name: string) => name.replace(/[^a-z0-9-]/gi, '_');
const load = (name: string, kind: Kind) =>
  JSON.parse(fs.readFileSync(path.join(cache, `${stem(name)}${suffix[kind]}.json`), 'utf8')) as AnalysisTree;

const references = fs
  .readdirSync(ESSENTIA_REFERENCE_DIR)
  .filter((f) => f.endsWith('.json'))
  .map((f) => JSON.parse(fs.readFileSync(path.join(ESSENTIA_REFERENCE_DIR, f), 'utf8')) as AnalysisTree);

type Feature = ClassicFeature & { family: string };
function familyOf(f: ClassicFeature, i: number): string {
  if (f.path.startsWith('rhythm.')) return 'rhythm';
  if (f.path === 'lowlevel.mfcc.mean') return process.env.TIMBRE ? 'mfcc' : 'mfcc_mean';
  if (f.path === 'lowlevel.mfcc.var') return process.env.TIMBRE ? 'mfcc' : 'mfcc_var';
  if (f.path === 'lowlevel.barkbands.mean') return 'bark';
  if (f.path.startsWith('lowlevel.spectral_contrast')) return 'contrast';
  if (i >= 86 || f.path.endsWith('.var') || f.path.endsWith('.dmean')) return 'change';
  return 'shape';
}
const base: Feature[] = CLASSIC_FEATURES.map((f, i) => ({ ...f, family: familyOf(f, i) }));

function raw(tree: AnalysisTree, features: Feature[]): number[] {
  const energy = readDescriptor(tree, LEVEL_PATH) as number;
  return features.map((f) => {
    const v = readDescriptor(tree, f.path);
    const x = f.index === undefined ? v : (v as number[])[f.index];
    if (typeof x !== 'number') {
      // Lean caches (LEAN=1 in twin-analyses.ts) lack the rhythm inputs: only their variants are void.
      if (process.env.TWIN_CACHE) return Number.NaN;
      throw new Error(`missing ${f.path}`);
    }
    return applyTransform(f.transform, removeLevel(f, x, energy));
  });
}
const q = (s: number[], p: number) => {
  const pos = (s.length - 1) * p;
  const lo = Math.floor(pos);
  return s[lo] + (s[Math.ceil(pos)] - s[lo]) * (pos - lo);
};
function calibrate(features: Feature[], rhythmOnly: boolean): Array<[number, number]> {
  const rows = references.map((t) => raw(t, features));
  return features.map((f, i) => {
    let col = rows.map((r) => r[i]);
    if (rhythmOnly && f.family === 'rhythm') {
      col = col.filter((_, k) => (readDescriptor(references[k], 'rhythm.bpm') as number) > 0);
    }
    const s = [...col].sort((a, b) => a - b);
    let spread = (q(s, 0.75) - q(s, 0.25)) / 1.349;
    if (!(spread > 1e-9)) {
      const m = col.reduce((a, b) => a + b, 0) / col.length;
      spread = Math.sqrt(col.reduce((a, b) => a + (b - m) ** 2, 0) / col.length) || 1;
    }
    return [q(s, 0.5), spread];
  });
}

interface Variant {
  label: string;
  features: Feature[];
  weight: (f: Feature, features: Feature[]) => number;
  rhythmOnly?: boolean;
}
function evaluate(v: Variant, bases: typeof TWIN_BASES) {
  const consts = calibrate(v.features, v.rhythmOnly ?? false);
  const w = v.features.map((f) => v.weight(f, v.features));
  const vec = (t: AnalysisTree) => {
    const r = raw(t, v.features).map(
      (x, i) => Math.max(-5, Math.min(5, (x - consts[i][0]) / consts[i][1])) * w[i],
    );
    const n = Math.hypot(...r);
    return r.map((x) => x / n);
  };
  const cands = bases.flatMap((b) =>
    (['original', 'otherKey', 'otherTempo'] as const).map((kind) => ({
      name: b.name,
      kind,
      v: vec(load(b.name, kind)),
    })),
  );
  const result: Record<string, string[]> = { twin: [], quieter: [] };
  for (const kind of ['twin', 'quieter'] as const) {
    for (const b of bases) {
      const qv = vec(load(b.name, kind));
      let best = cands[0];
      let bestScore = -2;
      for (const c of cands) {
        const s = c.v.reduce((a, x, i) => a + x * qv[i], 0);
        if (s > bestScore) {
          bestScore = s;
          best = c;
        }
      }
      if (!(best.name === b.name && best.kind === 'original'))
        result[kind].push(`${b.name}→${best.name}:${best.kind}`);
    }
  }
  return result;
}

const count = (features: Feature[], fam: string) => features.filter((f) => f.family === fam).length;
const onsetRate: Feature = { path: 'rhythm.onset_rate', transform: 'log', family: 'rhythm' };
const bpm: Feature = { path: 'rhythm.bpm', transform: 'linear', family: 'rhythm' };
const withOnset = [...base, onsetRate];
const familyBalanced = (f: Feature, fs: Feature[]) => 1 / Math.sqrt(count(fs, f.family));
const variants: Variant[] = [
  { label: 'as is', features: base, weight: () => 1 },
  { label: 'families balanced', features: base, weight: familyBalanced },
  { label: '+onset rate', features: withOnset, weight: () => 1 },
  { label: '+onset rate, rhythmic calib', features: withOnset, weight: () => 1, rhythmOnly: true },
  { label: '+onset rate, families balanced', features: withOnset, weight: familyBalanced },
  {
    label: '+onset rate, families balanced, rhythmic calib',
    features: withOnset,
    weight: familyBalanced,
    rhythmOnly: true,
  },
  { label: '+onset+bpm, families balanced', features: [...withOnset, bpm], weight: familyBalanced },
  { label: '+bpm, families balanced', features: [...base, bpm], weight: familyBalanced },
  {
    label: '+onset linear, families balanced',
    features: [...base, { ...onsetRate, transform: 'linear' }],
    weight: familyBalanced,
  },
  ...[0.5, 0.7, 1.4, 2].map((m) => ({
    label: `+onset rate, families balanced, rhythm x${m}`,
    features: withOnset,
    weight: (f: Feature, fs: Feature[]) => familyBalanced(f, fs) * (f.family === 'rhythm' ? m : 1),
  })),
  ...[0.5, 1.5, 2, 3].map((m) => ({
    label: `+onset rate, unbalanced, rhythm x${m}`,
    features: withOnset,
    weight: (f: Feature) => (f.family === 'rhythm' ? m : 1),
  })),
];
// Codec noise per input: the RMS over the 40 calibration recordings of the standardised change a
// 3 dB quieter 128k mp3 makes (codec-noise.ts), in units of the input's calibrated spread.
const codecPairs = JSON.parse(fs.readFileSync(path.join(cache, 'codec-noise.json'), 'utf8')) as Record<
  string,
  { original: AnalysisTree; twin: AnalysisTree }
>;
function codecNoise(features: Feature[]): number[] {
  const consts = calibrate(features, false);
  const sums = features.map(() => [] as number[]);
  for (const { original, twin } of Object.values(codecPairs)) {
    const a = raw(original, features);
    const b = raw(twin, features);
    a.forEach((x, i) => {
      sums[i].push(((b[i] - x) / consts[i][1]) ** 2);
    });
  }
  return sums.map((d) => Math.sqrt(d.reduce((x, y) => x + y, 0) / d.length));
}
function codecWeighted(features: Feature[], form: (c: number, m: number) => number) {
  const noise = codecNoise(features);
  const sorted = [...noise].sort((a, b) => a - b);
  const m = q(sorted, 0.5);
  if (process.env.SHOWNOISE)
    features.forEach((f, i) => {
      console.log(`${f.path}${f.index ?? ''} ${noise[i].toFixed(3)} w ${form(noise[i], m).toFixed(2)}`);
    });
  const weights = new Map(features.map((f, i) => [f, form(noise[i], m)]));
  return (f: Feature) => weights.get(f) as number;
}
variants.push(
  { label: 'codec m/c + onset rate', features: withOnset, weight: codecWeighted(withOnset, (c, m) => m / c) },
  {
    label: 'codec m/c + onset rate + bpm',
    features: [...withOnset, bpm],
    weight: codecWeighted([...withOnset, bpm], (c, m) => m / c),
  },
  { label: 'codec min(1, m/c)', features: base, weight: codecWeighted(base, (c, m) => Math.min(1, m / c)) },
  { label: 'codec m/c', features: base, weight: codecWeighted(base, (c, m) => m / c) },
  {
    label: 'codec 1/sqrt(1+(c/m)^2)',
    features: base,
    weight: codecWeighted(base, (c, m) => 1 / Math.hypot(1, c / m)),
  },
);
// Round two: the statistic each input reads. `median` in place of `mean` for the shape means (65-85),
// for all of them or, by rule, for those whose codec weight (Fisher ratio) the median raises on the
// 40 calibration recordings; and the median's codec noise in place of the mean's.
const asMedian = (f: Feature): Feature => ({ ...f, path: f.path.replace(/\.mean$/, '.median') });
const isShapeMean = (f: Feature) => f.family === 'shape' && f.path.endsWith('.mean') && f.index === undefined;
const allMedian = base.map((f) => (isShapeMean(f) ? asMedian(f) : f));
const medianWhereBetter = (() => {
  const both = [...base, ...base.filter(isShapeMean).map(asMedian)];
  const noise = codecNoise(both);
  const byLabel = new Map(both.map((f, i) => [`${f.path}${f.index ?? ''}`, noise[i]]));
  return base.map((f) => {
    if (!isShapeMean(f)) return f;
    const m = asMedian(f);
    const better = (byLabel.get(m.path) as number) < (byLabel.get(f.path) as number);
    if (process.env.SHOWNOISE)
      console.log(
        `${f.path} mean c ${byLabel.get(f.path)?.toFixed(3)} median c ${byLabel.get(m.path)?.toFixed(3)}`,
      );
    return better ? m : f;
  });
})();
if (process.env.SHOWNOISE)
  console.log(
    'median where better:',
    medianWhereBetter
      .filter((f) => f.path.endsWith('.median'))
      .map((f) => f.path)
      .join(' '),
  );
const only1 = (name: string) =>
  base.map((f) => (isShapeMean(f) && f.path.includes(`.${name}.`) ? asMedian(f) : f));
variants.push(
  {
    label: 'codec m/c, shape medians',
    features: allMedian,
    weight: codecWeighted(allMedian, (c, m) => m / c),
  },
  {
    label: 'codec m/c, median where its codec noise is lower',
    features: medianWhereBetter,
    weight: codecWeighted(medianWhereBetter, (c, m) => m / c),
  },
  ...['zerocrossingrate', 'spectral_centroid', 'spectral_rolloff', 'silence_rate_60dB'].map((n) => {
    const features = only1(n);
    return {
      label: `codec m/c, median of ${n} only`,
      features,
      weight: codecWeighted(features, (c, m) => m / c),
    };
  }),
);
const only = process.argv[2];
for (const v of variants) {
  if (only && !v.label.includes(only)) continue;
  for (const [setName, bases] of [
    ['first', TWIN_BASES_FIRST],
    ['wide', TWIN_BASES],
  ] as const) {
    const r = evaluate(v, bases);
    console.log(
      `${v.label} | ${setName} | twin ${bases.length - r.twin.length}/${bases.length} | quieter ${bases.length - r.quieter.length}/${bases.length} | ${r.twin.length > 12 ? '(many)' : r.twin.join(' ')} ${r.quieter.length ? `Q: ${r.quieter.length > 12 ? r.quieter.length : r.quieter.join(' ')}` : ''}`,
    );
  }
}

if (process.env.DIAG) {
  const feats = withOnset;
  const consts = calibrate(feats, false);
  for (const name of process.env.DIAG.split(',')) {
    const z = (k: Kind) => raw(load(name, k), feats).map((x, i) => (x - consts[i][0]) / consts[i][1]);
    const o = z('original');
    const t = z('twin');
    const p = z('otherTempo');
    const rows = feats.map((f, i) => ({
      l: `${f.path}${f.index ?? ''}`,
      o: o[i],
      dt: t[i] - o[i],
      dp: p[i] - o[i],
    }));
    rows.sort((a, b) => Math.abs(b.dt) - Math.abs(a.dt));
    console.log(
      name,
      'norm',
      Math.hypot(...o).toFixed(1),
      'twin-moved',
      Math.hypot(...rows.map((r) => r.dt)).toFixed(2),
      'tempo-moved',
      Math.hypot(...rows.map((r) => r.dp)).toFixed(2),
    );
    for (const r of rows.slice(0, 12))
      console.log(
        `  ${r.l.padEnd(48)} z ${r.o.toFixed(2)} twinΔ ${r.dt.toFixed(3)} tempoΔ ${r.dp.toFixed(3)}`,
      );
  }
}

if (process.env.LIKE) {
  const names = fs
    .readdirSync(ESSENTIA_REFERENCE_DIR)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.replace(/\.json$/, ''));
  for (const v of variants.filter((x) => x.label.startsWith('as is') || x.label.startsWith('codec'))) {
    const consts = calibrate(v.features, false);
    const vecs = references.map((t) => {
      const r = raw(t, v.features).map(
        (x, i) =>
          Math.max(-5, Math.min(5, (x - consts[i][0]) / consts[i][1])) * v.weight(v.features[i], v.features),
      );
      const n = Math.hypot(...r);
      return r.map((x) => x / n);
    });
    const nearest = (name: string) => {
      const i = names.indexOf(name);
      let best = -1;
      let score = -2;
      vecs.forEach((w, j) => {
        const s = j === i ? -3 : w.reduce((a, x, k) => a + x * vecs[i][k], 0);
        if (s > score) [best, score] = [j, s];
      });
      return names[best];
    };
    console.log(
      v.label,
      ['tbd_pad_1', 'tbd_pad_2', 'bd_808', 'bd_jazz', 'bd_fat', 'bd_klub', 'hat_cab']
        .map((n) => `${n}→${nearest(n)}`)
        .join(' '),
    );
  }
}
