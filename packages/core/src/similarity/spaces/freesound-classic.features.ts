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
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const vectorFeature = (path: string, size: number, transform: FeatureTransform): ClassicFeature[] =>
  range(size).map((index) => ({ path, index, transform }));
const scalar = (path: string, transform: FeatureTransform): ClassicFeature => ({ path, transform });

const meanOf: Array<[string, FeatureTransform]> = [
  ['spectral_centroid', 'log'],
  ['spectral_spread', 'log'],
  ['spectral_skewness', 'asinh'],
  ['spectral_kurtosis', 'asinh'],
  ['spectral_rolloff', 'log'],
  ['spectral_flatness_db', 'linear'],
  ['spectral_entropy', 'linear'],
  ['spectral_crest', 'log'],
  ['spectral_complexity', 'asinh'],
  ['spectral_flux', 'log'],
  ['zerocrossingrate', 'log'],
  ['dissonance', 'linear'],
  ['pitch_salience', 'linear'],
  ['hfc', 'log'],
  ['spectral_strongpeak', 'log'],
  ['spectral_decrease', 'asinh'],
  ['barkbands_skewness', 'asinh'],
  ['barkbands_kurtosis', 'asinh'],
  ['barkbands_spread', 'log'],
  ['pitch_instantaneous_confidence', 'linear'],
  ['silence_rate_20dB', 'linear'],
  ['silence_rate_30dB', 'linear'],
  ['silence_rate_60dB', 'linear'],
];

// Variance and mean absolute frame-to-frame change (dmean) say how much a sound moves over time.
const varianceOf = [
  'spectral_centroid',
  'spectral_energy',
  'spectral_flux',
  'zerocrossingrate',
  'pitch_salience',
  'spectral_complexity',
];
const changeOf = [
  'spectral_centroid',
  'spectral_energy',
  'spectral_rolloff',
  'zerocrossingrate',
  'hfc',
  'spectral_flux',
];

export const CLASSIC_FEATURES: readonly ClassicFeature[] = [
  ...vectorFeature('lowlevel.mfcc.mean', 13, 'linear'),
  ...vectorFeature('lowlevel.mfcc.var', 13, 'log'),
  ...vectorFeature('lowlevel.barkbands.mean', 27, 'log'),
  ...vectorFeature('lowlevel.spectral_contrast_coeffs.mean', 6, 'linear'),
  ...vectorFeature('lowlevel.spectral_contrast_valleys.mean', 6, 'linear'),
  ...meanOf.map(([name, transform]) => scalar(`lowlevel.${name}.mean`, transform)),
  ...varianceOf.map((name) => scalar(`lowlevel.${name}.var`, 'log')),
  ...changeOf.map((name) => scalar(`lowlevel.${name}.dmean`, 'log')),
];

/** Standardised values are clipped here so one extreme statistic cannot dominate a direction. */
export const CLASSIC_CLIP = 5;

export function featureLabel(feature: ClassicFeature): string {
  return feature.index === undefined ? feature.path : `${feature.path}[${feature.index}]`;
}

export function applyTransform(transform: FeatureTransform, x: number): number {
  if (transform === 'log') return Math.log10(Math.max(x, 1e-12));
  if (transform === 'asinh') return Math.asinh(x);
  return x;
}
