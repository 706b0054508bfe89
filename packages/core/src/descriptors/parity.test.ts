/**
 * Parity with native Essentia (FreesoundExtractor, C++) on 40 real CC0 recordings: for descriptors whose
 * definition we follow, the rank correlation (Spearman ρ) across the recordings must be high, and the
 * integrated loudness must agree in absolute terms. The full ρ table is printed for the report.
 */
import { type RealSample, realSamples } from '@earshot/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  formatParityReport,
  PARITY_TARGETS,
  type ParityReport,
  parityReport,
} from '../testing/parity-report.ts';
import { spearman } from '../testing/parity-stats.ts';
import { analyzeFile } from './analyze-file.ts';
import { treeLeaves } from './descriptor-layout.ts';
import { stopEssentiaWorker } from './essentia-client.ts';

/** Same definition as Essentia's (window, frame, band edges, formula): ranks must agree closely. */
const MATCHED = [
  'lowlevel.loudness_ebu128.integrated',
  'lowlevel.loudness_ebu128.momentary.mean',
  'lowlevel.loudness_ebu128.short_term.mean',
  'lowlevel.spectral_energy.mean',
  'lowlevel.spectral_rms.mean',
  'lowlevel.spectral_energyband_low.mean',
  'lowlevel.spectral_energyband_middle_low.mean',
  'lowlevel.spectral_energyband_middle_high.mean',
  'lowlevel.spectral_energyband_high.mean',
  'lowlevel.hfc.mean',
  'lowlevel.zerocrossingrate.mean',
  'lowlevel.spectral_rolloff.mean',
  'lowlevel.spectral_spread.mean',
  'lowlevel.spectral_skewness.mean',
  'lowlevel.spectral_kurtosis.mean',
  'lowlevel.spectral_strongpeak.mean',
  'lowlevel.spectral_flux.mean',
  'lowlevel.spectral_decrease.mean',
  'lowlevel.melbands_flatness_db.mean',
  'lowlevel.barkbands_flatness_db.mean',
  'sfx.duration',
  'sfx.logattacktime',
  'tonal.hpcp_entropy.mean',
  'tonal.hpcp_crest.mean',
];
/** Close but not identical definitions (see docs/descriptors.md): ranks must still agree. */
const RELATED = [
  'lowlevel.spectral_centroid.mean',
  'lowlevel.spectral_crest.mean',
  'lowlevel.spectral_entropy.mean',
  'lowlevel.spectral_complexity.mean',
  'lowlevel.pitch_instantaneous_confidence.mean',
  'lowlevel.barkbands_crest.mean',
  'lowlevel.barkbands_kurtosis.mean',
  'sfx.max_to_total',
  'sfx.effective_duration',
  'sfx.strongdecay',
  'rhythm.bpm',
];

function referenceValue(sample: RealSample, name: string): unknown {
  return name
    .split('.')
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], sample.reference);
}

/** Issue 17's descriptors at target. */
const AT_TARGET = [
  'lowlevel.silence_rate_20dB.mean',
  'lowlevel.silence_rate_30dB.mean',
  'lowlevel.silence_rate_60dB.mean',
  'lowlevel.spectral_centroid.mean',
  'lowlevel.spectral_entropy.mean',
  'lowlevel.spectral_complexity.mean',
  'lowlevel.erbbands.mean (median of 18)',
  'lowlevel.erbbands_crest.mean',
  'lowlevel.erbbands_flatness_db.mean',
  'lowlevel.erbbands_spread.mean',
  'lowlevel.erbbands_skewness.mean',
  'lowlevel.erbbands_kurtosis.mean',
  'lowlevel.gfcc.mean (median of 13)',
  'sfx.temporal_centroid',
  'sfx.effective_duration',
  'sfx.temporal_spread',
  'sfx.temporal_skewness',
  'sfx.temporal_kurtosis',
  'sfx.temporal_decrease',
  'sfx.tc_to_total',
  'lowlevel.pitch_salience.mean',
  'sfx.inharmonicity.mean',
  'lowlevel.dissonance.mean',
  'lowlevel.pitch.mean',
  'sfx.pitch_centroid',
  'sfx.pitch_max_to_total',
  'sfx.pitch_min_to_total',
  'sfx.pitch_after_max_to_before_max_energy_ratio',
  'rhythm.bpm_histogram_first_peak_weight',
  'rhythm.bpm_histogram_first_peak_spread',
  'rhythm.bpm_histogram_second_peak_weight',
  'rhythm.bpm_histogram_second_peak_spread',
];

/** Issue 17's descriptors not at target yet, with their measured ρ and filter agreement (known open). */
// Empty since the beat tracker took the reference's information-gain candidate (second-peak spread, the
// last row, went from ρ 0.679 to parity); a row goes here with its measured floor if a definition regresses.
const KNOWN_OPEN: Record<string, { rho: number; agreement: number }> = {};

describe('parity with native Essentia on 40 real recordings', () => {
  const ours = new Map<string, number[]>();
  const theirs = new Map<string, number[]>();
  const rho = new Map<string, number>();
  const pairs: { reference: Record<string, unknown>; ours: Record<string, unknown> }[] = [];
  let report: ParityReport;

  beforeAll(async () => {
    for (const sample of realSamples()) {
      const { variantA } = await analyzeFile(sample.file);
      pairs.push({ reference: sample.reference, ours: variantA as Record<string, unknown> });
      for (const [name, value] of treeLeaves(variantA)) {
        const reference = referenceValue(sample, name);
        if (typeof value !== 'number' || typeof reference !== 'number') continue;
        ours.set(name, [...(ours.get(name) ?? []), value]);
        theirs.set(name, [...(theirs.get(name) ?? []), reference]);
      }
    }
    for (const [name, values] of ours)
      if (values.length === 40) rho.set(name, spearman(values, theirs.get(name) ?? []));
    const table = [...rho]
      .filter(([n]) => /\.mean$|^[^.]+\.[^.]+$|integrated|logattacktime/.test(n))
      .sort((a, b) => b[1] - a[1]);
    console.log(
      `Spearman ρ, ours vs native Essentia (40 recordings):\n${table.map(([n, r]) => `${r.toFixed(3)}  ${n}`).join('\n')}`,
    );
    report = parityReport(pairs);
    console.log(`Parity report (issue 17):\n${formatParityReport(report)}`);
  }, 600_000);
  afterAll(stopEssentiaWorker);

  // Issue 17: the descriptors brought to the reference's definition hold ρ ≥ 0.9 and filter agreement ≥ 0.8.
  it.each(AT_TARGET)('%s is at parity (ρ ≥ 0.9, filter agreement ≥ 0.8)', (name) => {
    const row = report.rows.find((r) => r.name === name);
    expect(row?.rho).toBeGreaterThanOrEqual(PARITY_TARGETS.rho);
    expect(row?.agreement).toBeGreaterThanOrEqual(PARITY_TARGETS.agreement);
  });

  // Not at target yet: each holds at least its figure when this list was written (minus 0.02 of slack), so a
  // regression fails; raise the floors, or move the row to AT_TARGET, as definitions are fixed.
  const knownOpen = Object.entries(KNOWN_OPEN);
  if (knownOpen.length > 0)
    it.each(knownOpen)('%s does not fall below its measured figures', (name, floor) => {
      const row = report.rows.find((r) => r.name.startsWith(name));
      expect(row?.rho).toBeGreaterThanOrEqual(floor.rho - 0.02);
      expect(row?.agreement).toBeGreaterThanOrEqual(floor.agreement - 0.02);
    });

  it('covers every descriptor of the issue', () => {
    const covered = [...AT_TARGET, ...Object.keys(KNOWN_OPEN)];
    for (const row of report.rows) expect(covered.some((name) => row.name.startsWith(name))).toBe(true);
  });

  it.each(MATCHED)('ρ ≥ 0.95 for %s', (name) => {
    expect(rho.get(name)).toBeGreaterThanOrEqual(0.95);
  });

  it.each(RELATED)('ρ ≥ 0.8 for %s', (name) => {
    expect(rho.get(name)).toBeGreaterThanOrEqual(0.8);
  });

  it('integrated loudness within 1 LU of native Essentia on at least 36 of 40 recordings', () => {
    const a = ours.get('lowlevel.loudness_ebu128.integrated') ?? [];
    const b = theirs.get('lowlevel.loudness_ebu128.integrated') ?? [];
    const close = a.filter((v, i) => Math.abs(v - b[i]) <= 1).length;
    console.log(
      `loudness |Δ| per recording (LU): ${a.map((v, i) => Math.abs(v - b[i]).toFixed(2)).join(' ')}`,
    );
    expect(close).toBeGreaterThanOrEqual(36);
  });
});
