/**
 * Parity with native Essentia (FreesoundExtractor, C++) on 40 real CC0 recordings: for descriptors whose
 * definition we follow, the rank correlation (Spearman ρ) across the recordings must be high, and the
 * integrated loudness must agree in absolute terms. The full ρ table is printed for the report.
 */
import { type RealSample, realSamples } from '@earshot/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  'tonal.hpcp_entropy.mean',
  'tonal.hpcp_crest.mean',
  'rhythm.bpm',
];

function ranks(values: number[]): number[] {
  const order = values.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0]);
  const out = new Array<number>(values.length);
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && order[j + 1][0] === order[i][0]) j++;
    for (let k = i; k <= j; k++) out[order[k][1]] = (i + j) / 2;
    i = j + 1;
  }
  return out;
}

export function spearman(a: number[], b: number[]): number {
  const ra = ranks(a);
  const rb = ranks(b);
  const n = a.length;
  const ma = ra.reduce((x, y) => x + y, 0) / n;
  const mb = rb.reduce((x, y) => x + y, 0) / n;
  let num = 0;
  let da = 0;
  let db = 0;
  for (let i = 0; i < n; i++) {
    num += (ra[i] - ma) * (rb[i] - mb);
    da += (ra[i] - ma) ** 2;
    db += (rb[i] - mb) ** 2;
  }
  return da > 0 && db > 0 ? num / Math.sqrt(da * db) : 0;
}

function referenceValue(sample: RealSample, name: string): unknown {
  return name
    .split('.')
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], sample.reference);
}

describe('parity with native Essentia on 40 real recordings', () => {
  const ours = new Map<string, number[]>();
  const theirs = new Map<string, number[]>();
  const rho = new Map<string, number>();

  beforeAll(async () => {
    for (const sample of realSamples()) {
      const { variantA } = await analyzeFile(sample.file);
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
  }, 600_000);
  afterAll(stopEssentiaWorker);

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
