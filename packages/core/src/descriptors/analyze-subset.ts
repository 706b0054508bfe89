import { ValidationError } from '@earshot/common/errors';
import { envelopeDescriptors } from './envelope.ts';
import { type LowLevelOptions, type LowLevelWanted, lowLevelFrames } from './lowlevel.ts';
import { finite } from './statistics.ts';
import type { VariantATree } from './types.ts';
import {
  ENVELOPE_SFX,
  EXTRACTOR_VERSION,
  envelopeSfx,
  LOWLEVEL_SCALARS,
  LOWLEVEL_VECTORS,
  stats,
  vstats,
} from './variant-a.ts';

/** A lean analysis asked for paths it does not compute (tonal, rhythm, loudness…: run `analyzeSignal`). */
export class UnsupportedSubsetError extends ValidationError {
  constructor(readonly paths: readonly string[]) {
    super(`the lean analysis cannot compute ${paths.join(', ')}`, { paths });
  }
}

/**
 * A lean analysis: only the variant-A descriptors a caller reads (a similarity space's inputs, the
 * descriptors content search compares), for search by example, where a clip is compared and never
 * stored. It runs the same feature functions as the full analysis (analyze.ts) on the same frames,
 * so every value it gives equals the full analysis's value at the same path.
 */

/** Frame series of the low-level loop that the tree also holds under `sfx.*` (harmonic features). */
const SFX_SERIES = new Set(['inharmonicity', 'oddtoevenharmonicenergyratio', 'tristimulus']);
const LOWLEVEL_SERIES = new Set<string>([...LOWLEVEL_SCALARS, ...LOWLEVEL_VECTORS]);
const ENVELOPE_NAMES = new Set(ENVELOPE_SFX);

/** What a set of descriptor paths needs computed; `unsupported` lists paths the lean analysis cannot give. */
export interface SubsetPlan {
  /** Low-level frame series (their whole statistics block goes in the tree). */
  series: Set<string>;
  /** Whether the amplitude-envelope values (`sfx.logattacktime`, …) are needed. */
  envelope: boolean;
  /** Paths outside what the lean analysis computes (tonal, rhythm, loudness, …). */
  unsupported: string[];
}

/**
 * Maps variant-A paths (`lowlevel.mfcc.mean`, `lowlevel.mfcc.mean[3]`, `lowlevel.spectral_centroid`,
 * `sfx.logattacktime`) to the work they need.
 */
export function planSubset(paths: readonly string[]): SubsetPlan {
  const plan: SubsetPlan = { series: new Set(), envelope: false, unsupported: [] };
  for (const path of paths) {
    const [group, name] = path.replace(/\[\d+\]$/, '').split('.');
    if (group === 'lowlevel' && LOWLEVEL_SERIES.has(name)) plan.series.add(name);
    else if (group === 'sfx' && SFX_SERIES.has(name)) plan.series.add(name);
    else if (group === 'sfx' && ENVELOPE_NAMES.has(name)) plan.envelope = true;
    else if (group === 'sfx' && name === 'duration') continue;
    else if (group === 'metadata') continue;
    else plan.unsupported.push(path);
  }
  return plan;
}

/**
 * The variant-A tree of a mono signal holding only what `plan` asks for: each requested low-level
 * series with its whole statistics block, the envelope values when asked, `sfx.duration` and the
 * metadata. Throws when the plan has unsupported paths (callers run the full analysis then). With
 * `frameStride` > 1 (clip queries only) some statistics are estimates: see `LowLevelOptions`.
 */
export function analyzeSubset(
  samples: Float32Array,
  sampleRate: number,
  plan: SubsetPlan,
  options: LowLevelOptions = {},
): VariantATree {
  if (plan.unsupported.length > 0) {
    throw new UnsupportedSubsetError(plan.unsupported);
  }
  const duration = samples.length / sampleRate;
  const lowlevel: VariantATree = {};
  const sfx: VariantATree = {};
  if (plan.series.size > 0) {
    const { series } = lowLevelFrames(samples, sampleRate, plan.series as LowLevelWanted, options);
    for (const name of plan.series) {
      const target = SFX_SERIES.has(name) ? sfx : lowlevel;
      target[name] = series.vectors.has(name) ? vstats(series, name) : stats(series, name);
    }
  }
  if (plan.envelope) Object.assign(sfx, envelopeSfx(envelopeDescriptors(samples, sampleRate)));
  sfx.duration = finite(duration);
  return {
    lowlevel,
    sfx,
    metadata: {
      audio_properties: { analysis_sample_rate: sampleRate, length: finite(duration), downmix: 'mix' },
      version: { extractor: EXTRACTOR_VERSION },
    },
  };
}
