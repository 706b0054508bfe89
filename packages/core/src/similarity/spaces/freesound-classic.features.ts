/**
 * The 100 inputs of the freesound_classic space, in vector order. Upstream Freesound projects 843
 * low-level statistics through a PCA matrix we do not have; we keep its spirit (low-level spectral
 * shape, timbre and their change over time) with 100 hand-picked statistics instead, each one
 * transformed and standardised with fixed constants (freesound-classic.constants.ts).
 *
 * transform: `log` = log10(max(x, 1e-12)) for non-negative energy-like values spanning decades;
 * `asinh` for signed heavy-tailed values; `linear` otherwise.
 */
export type FeatureTransform = 'linear' | 'log' | 'asinh';

export interface ClassicFeature {
  /** Variant-A dotted path to a number or a fixed-length array. */
  readonly path: string;
  /** Dimension inside the array at `path`, when the descriptor is a vector. */
  readonly index?: number;
  readonly transform: FeatureTransform;
  /**
   * How the input's dependence on level is removed before the transform (none when absent). A gain
   * g multiplies the frame power, so `lowlevel.spectral_energy.mean` (E) by g²:
   * - `{ divideByEnergy: p }`: x / E^p, for a statistic that scales as g^(2p) (p = 1 for power-like
   *   values such as bark band energies, HFC and spectral decrease; 0.5 for magnitude-like values
   *   such as spectral flux and strong peak; 2 for the variance of the energy);
   * - `{ minusDbOfEnergy: k }`: x − k·log10(E), for a statistic that a gain shifts by k·log10(g²)
   *   (MFCC 0, the orthonormal DCT-II of 40 bands in dB: k = 20·√40).
   */
  readonly level?: { readonly divideByEnergy: number } | { readonly minusDbOfEnergy: number };
}

/** The reference level every level-free input is measured against (scales as g² with a gain g). */
export const LEVEL_PATH = 'lowlevel.spectral_energy.mean';
const MFCC0_DB_SLOPE = 20 * Math.sqrt(40);

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const vectorFeature = (
  path: string,
  size: number,
  transform: FeatureTransform,
  level?: ClassicFeature['level'],
): ClassicFeature[] => range(size).map((index) => ({ path, index, transform, level }));
const scalar = (
  path: string,
  transform: FeatureTransform,
  level?: ClassicFeature['level'],
): ClassicFeature => ({
  path,
  transform,
  level,
});
const power = { divideByEnergy: 1 } as const;
const magnitude = { divideByEnergy: 0.5 } as const;

const meanOf: Array<[string, FeatureTransform, ClassicFeature['level']?]> = [
  ['spectral_centroid', 'log'],
  ['spectral_spread', 'log'],
  ['spectral_skewness', 'asinh'],
  ['spectral_kurtosis', 'asinh'],
  ['spectral_rolloff', 'log'],
  ['spectral_flatness_db', 'linear'],
  ['spectral_entropy', 'linear'],
  ['spectral_crest', 'log'],
  ['spectral_complexity', 'asinh'],
  ['spectral_flux', 'log', magnitude],
  ['zerocrossingrate', 'log'],
  ['dissonance', 'linear'],
  ['pitch_salience', 'linear'],
  ['hfc', 'log', power],
  ['spectral_strongpeak', 'log', magnitude],
  ['spectral_decrease', 'asinh', power],
  ['barkbands_skewness', 'asinh'],
  ['barkbands_kurtosis', 'asinh'],
  ['barkbands_spread', 'log'],
  ['pitch_instantaneous_confidence', 'linear'],
  // Silence rates count frames under an absolute level, so a gain moves them: only the -60 dB one,
  // which a few dB rarely cross, stays.
  ['silence_rate_60dB', 'linear'],
];

// They took the places of silence_rate_20dB and _30dB: how much the spectral shape moves over time.
const shapeVarianceOf = ['spectral_spread', 'spectral_flatness_db'];

// Variance and mean absolute frame-to-frame change (dmean) say how much a sound moves over time.
// Level-free forms: energy variance / E², flux variance / E, energy and HFC change / E, flux change / √E.
const varianceOf: Array<[string, ClassicFeature['level']?]> = [
  ['spectral_centroid'],
  ['spectral_energy', { divideByEnergy: 2 }],
  ['spectral_flux', power],
  ['zerocrossingrate'],
  ['pitch_salience'],
  ['spectral_complexity'],
];
const changeOf: Array<[string, ClassicFeature['level']?]> = [
  ['spectral_centroid'],
  ['spectral_energy', power],
  ['spectral_rolloff'],
  ['zerocrossingrate'],
  ['hfc', power],
  ['spectral_flux', magnitude],
];
export const CLASSIC_FEATURES: readonly ClassicFeature[] = [
  { path: 'lowlevel.mfcc.mean', index: 0, transform: 'linear', level: { minusDbOfEnergy: MFCC0_DB_SLOPE } },
  ...vectorFeature('lowlevel.mfcc.mean', 13, 'linear').slice(1),
  ...vectorFeature('lowlevel.mfcc.var', 13, 'log'),
  ...vectorFeature('lowlevel.barkbands.mean', 27, 'log', power),
  ...vectorFeature('lowlevel.spectral_contrast_coeffs.mean', 6, 'linear'),
  ...vectorFeature('lowlevel.spectral_contrast_valleys.mean', 6, 'linear'),
  ...meanOf.map(([name, transform, level]) => scalar(`lowlevel.${name}.mean`, transform, level)),
  ...shapeVarianceOf.map((name) => scalar(`lowlevel.${name}.var`, 'log')),
  ...varianceOf.map(([name, level]) => scalar(`lowlevel.${name}.var`, 'log', level)),
  ...changeOf.map(([name, level]) => scalar(`lowlevel.${name}.dmean`, 'log', level)),
];

/** Standardised values are clipped here so one extreme statistic cannot dominate a direction. */
export const CLASSIC_CLIP = 5;

export function featureLabel(feature: ClassicFeature): string {
  return feature.index === undefined ? feature.path : `${feature.path}[${feature.index}]`;
}

/** The input with its level removed (see `ClassicFeature.level`); `energy` is LEVEL_PATH's value. */
export function removeLevel(feature: ClassicFeature, x: number, energy: number): number {
  if (!feature.level) return x;
  const e = Math.max(energy, 1e-20);
  if ('divideByEnergy' in feature.level) return x / e ** feature.level.divideByEnergy;
  return x - feature.level.minusDbOfEnergy * Math.log10(e);
}

/** Every variant-A path the space reads: its inputs and the level they are measured against. */
export const CLASSIC_PATHS: readonly string[] = [
  ...new Set([...CLASSIC_FEATURES.map((f) => f.path), LEVEL_PATH]),
];

export function applyTransform(transform: FeatureTransform, x: number): number {
  if (transform === 'log') return Math.log10(Math.max(x, 1e-12));
  if (transform === 'asinh') return Math.asinh(x);
  return x;
}
