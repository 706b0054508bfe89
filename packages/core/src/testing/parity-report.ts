/**
 * The parity report of issue 17: per descriptor the reference extractor defines and the contract names,
 * Spearman ρ and filter agreement between our values and the reference's over the reference recordings.
 * Pure: takes the values already read, so the benchmark and the parity test share it.
 */
import { filterAgreement, median, spearman } from './parity-stats.ts';

export const PARITY_TARGETS = { rho: 0.9, agreement: 0.8, medianAgreement: 0.9 } as const;

/** Vector descriptors are compared coefficient by coefficient; their row reports the median coefficient. */
const VECTOR_ROWS = new Set(['lowlevel.erbbands.mean', 'lowlevel.gfcc.mean']);

/** The descriptors of issue 17's list, by their variant-A (reference JSON) names. */
export const PARITY_DESCRIPTORS = [
  'lowlevel.pitch_salience.mean',
  'lowlevel.dissonance.mean',
  'sfx.inharmonicity.mean',
  'lowlevel.silence_rate_20dB.mean',
  'lowlevel.silence_rate_30dB.mean',
  'lowlevel.silence_rate_60dB.mean',
  'lowlevel.spectral_centroid.mean',
  'lowlevel.spectral_entropy.mean',
  'lowlevel.spectral_complexity.mean',
  'sfx.temporal_centroid',
  'sfx.effective_duration',
  'lowlevel.pitch.mean',
  'lowlevel.erbbands.mean',
  'lowlevel.erbbands_crest.mean',
  'lowlevel.erbbands_flatness_db.mean',
  'lowlevel.erbbands_spread.mean',
  'lowlevel.erbbands_skewness.mean',
  'lowlevel.erbbands_kurtosis.mean',
  'lowlevel.gfcc.mean',
  'sfx.temporal_spread',
  'sfx.temporal_skewness',
  'sfx.temporal_kurtosis',
  'sfx.temporal_decrease',
  'sfx.tc_to_total',
  'sfx.pitch_centroid',
  'sfx.pitch_max_to_total',
  'sfx.pitch_min_to_total',
  'sfx.pitch_after_max_to_before_max_energy_ratio',
  'rhythm.bpm_histogram_first_peak_weight',
  'rhythm.bpm_histogram_first_peak_spread',
  'rhythm.bpm_histogram_second_peak_weight',
  'rhythm.bpm_histogram_second_peak_spread',
] as const;

export interface ParityRow {
  name: string;
  /** Recordings where both sides had a number. */
  n: number;
  rho: number;
  agreement: number;
  pass: boolean;
}

export interface ParityReport {
  rows: ParityRow[];
  medianAgreement: number;
  medianPass: boolean;
}

type Tree = Record<string, unknown>;

export function valueAt(tree: Tree, name: string): unknown {
  return name.split('.').reduce<unknown>((node, key) => (node as Tree | undefined)?.[key], tree);
}

/** One descriptor's row from the paired values (same recording at the same index). */
export function parityRow(name: string, reference: number[], ours: number[]): ParityRow {
  const rho = spearman(reference, ours);
  const agreement = filterAgreement(reference, ours);
  return {
    name,
    n: reference.length,
    rho,
    agreement,
    pass: rho >= PARITY_TARGETS.rho && agreement >= PARITY_TARGETS.agreement,
  };
}

/** One row per descriptor over the recordings given as pairs of (reference tree, our variant-A tree). */
export function parityReport(pairs: readonly { reference: Tree; ours: Tree }[]): ParityReport {
  const rows: ParityRow[] = [];
  for (const name of PARITY_DESCRIPTORS) {
    if (VECTOR_ROWS.has(name)) {
      const width = Math.min(
        ...pairs.map((p) => {
          const r = valueAt(p.reference, name);
          const o = valueAt(p.ours, name);
          return Array.isArray(r) && Array.isArray(o) ? Math.min(r.length, o.length) : 0;
        }),
      );
      const coefficients: ParityRow[] = [];
      for (let k = 0; k < width; k++)
        coefficients.push(
          parityRow(
            `${name}[${k}]`,
            pairs.map((p) => (valueAt(p.reference, name) as number[])[k]),
            pairs.map((p) => (valueAt(p.ours, name) as number[])[k]),
          ),
        );
      const rho = width ? median(coefficients.map((c) => c.rho)) : 0;
      const agreement = width ? median(coefficients.map((c) => c.agreement)) : 0;
      rows.push({
        name: `${name} (median of ${width})`,
        n: pairs.length,
        rho,
        agreement,
        pass: rho >= PARITY_TARGETS.rho && agreement >= PARITY_TARGETS.agreement,
      });
      continue;
    }
    const reference: number[] = [];
    const ours: number[] = [];
    for (const p of pairs) {
      const r = valueAt(p.reference, name);
      const o = valueAt(p.ours, name);
      if (typeof r === 'number' && typeof o === 'number' && Number.isFinite(r) && Number.isFinite(o)) {
        reference.push(r);
        ours.push(o);
      }
    }
    rows.push(
      reference.length ? parityRow(name, reference, ours) : { name, n: 0, rho: 0, agreement: 0, pass: false },
    );
  }
  const medianAgreement = median(rows.map((r) => r.agreement));
  return { rows, medianAgreement, medianPass: medianAgreement >= PARITY_TARGETS.medianAgreement };
}

/** The report as a fixed-width table, targets and pass/fail beside each figure. */
export function formatParityReport(report: ParityReport): string {
  const width = Math.max(...report.rows.map((r) => r.name.length));
  const head = `${'descriptor'.padEnd(width)}   n   ρ (≥${PARITY_TARGETS.rho})  agreement (≥${PARITY_TARGETS.agreement})  result`;
  const lines = report.rows.map(
    (r) =>
      `${r.name.padEnd(width)}  ${String(r.n).padStart(2)}  ${r.rho.toFixed(3).padStart(9)}  ${r.agreement
        .toFixed(3)
        .padStart(16)}  ${r.pass ? 'pass' : 'FAIL'}`,
  );
  const passed = report.rows.filter((r) => r.pass).length;
  return [
    head,
    ...lines,
    '',
    `rows at target: ${passed} of ${report.rows.length}`,
    `median filter agreement: ${report.medianAgreement.toFixed(3)} (target ≥ ${PARITY_TARGETS.medianAgreement}) ${report.medianPass ? 'pass' : 'FAIL'}`,
  ].join('\n');
}
