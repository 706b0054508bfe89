/**
 * The whole-tree parity report (issue 37): every numeric leaf the reference extractor writes — each
 * statistic of each descriptor, each dimension of a vector — compared across the recordings with the same
 * two figures as the 32-descriptor report (Spearman ρ, filter agreement). Pure: takes the trees already read.
 */

import { STAT_NAMES } from '../descriptors/statistics.ts';
import { PARITY_TARGETS, type ParityRow, parityRow, valueAt } from './parity-report.ts';
import { median } from './parity-stats.ts';

type Tree = Record<string, unknown>;

/**
 * Reference branches that are not per-sound descriptor values: the file's metadata and the per-event
 * lists (one entry per beat or onset, a different length per recording, nothing to rank across sounds).
 */
const NOT_LEAVES = new Set([
  'metadata',
  'rhythm.beats_position',
  'rhythm.onset_times',
  'rhythm.bpm_intervals',
  'rhythm.bpm_histogram',
  'tonal.chords_progression',
]);

/** Reference paths whose value sits elsewhere in our tree (the legacy flat key names of variant A). */
const OUR_NAME: Record<string, string> = {
  'tonal.key.strength': 'tonal.key_strength',
};

/** The numeric leaves of one tree, vector dimensions written `name[k]`. */
export function numericLeaves(tree: Tree, prefix = ''): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(tree)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (NOT_LEAVES.has(name)) continue;
    if (typeof value === 'number') out.push(name);
    else if (Array.isArray(value)) {
      value.forEach((v, k) => {
        if (typeof v === 'number') out.push(`${name}[${k}]`);
      });
    } else if (value && typeof value === 'object') out.push(...numericLeaves(value as Tree, name));
  }
  return out;
}

/** The value of a leaf `a.b.c` or `a.b.c[k]` in a tree (the reference's spelling), or undefined. */
export function leafValue(tree: Tree, leaf: string, ours = false): unknown {
  const m = /^(.*)\[(\d+)\]$/.exec(leaf);
  const base = m ? m[1] : leaf;
  const value = valueAt(tree, ours ? (OUR_NAME[base] ?? base) : base);
  return m ? (Array.isArray(value) ? value[Number(m[2])] : undefined) : value;
}

/** The descriptor a leaf belongs to: its path without the statistic and the dimension. */
export function leafFamily(leaf: string): string {
  const base = leaf.replace(/\[\d+\]$/, '');
  const parts = base.split('.');
  const last = parts[parts.length - 1];
  return STATISTICS.has(last) && parts.length > 2 ? parts.slice(0, -1).join('.') : base;
}

const STATISTICS = new Set<string>(STAT_NAMES);

export interface LeafRow extends ParityRow {
  family: string;
  /** The reference writes the same value for every recording: no ranking to agree with. */
  constantReference: boolean;
}

export interface FamilyRow {
  family: string;
  leaves: number;
  atRho: number;
  atAgreement: number;
  medianRho: number;
  worst: LeafRow;
}

export interface WholeTreeReport {
  recordings: number;
  leaves: LeafRow[];
  families: FamilyRow[];
  shareRho: number;
  shareAgreement: number;
  shareBoth: number;
  medianAgreement: number;
  /** The same shares restricted to the `mean` statistic (and scalar leaves with no statistic). */
  meanShareRho: number;
  meanShareAgreement: number;
}

const isNumber = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

/**
 * One row per leaf. A leaf the reference holds constant over the recordings (a `min` of 0 everywhere)
 * has no ranks: it agrees (ρ and agreement 1) when ours is the same constant within 1e-6 relative, and
 * counts as a miss otherwise. A leaf we do not write counts as a miss (n = 0).
 */
export function leafRow(leaf: string, pairs: readonly { reference: Tree; ours: Tree }[]): LeafRow {
  const reference: number[] = [];
  const ours: number[] = [];
  for (const p of pairs) {
    const r = leafValue(p.reference, leaf);
    const o = leafValue(p.ours, leaf, true);
    if (isNumber(r) && isNumber(o)) {
      reference.push(r);
      ours.push(o);
    }
  }
  const family = leafFamily(leaf);
  if (reference.length === 0)
    return { name: leaf, family, n: 0, rho: 0, agreement: 0, pass: false, constantReference: false };
  const constant = reference.every((r) => r === reference[0]);
  if (constant) {
    const same = ours.every((o) => Math.abs(o - reference[0]) <= 1e-6 * Math.max(1, Math.abs(reference[0])));
    return {
      name: leaf,
      family,
      n: reference.length,
      rho: same ? 1 : 0,
      agreement: same ? 1 : 0,
      pass: same,
      constantReference: true,
    };
  }
  return { ...parityRow(leaf, reference, ours), family, constantReference: false };
}

const share = (rows: readonly LeafRow[], test: (r: LeafRow) => boolean): number =>
  rows.length ? rows.filter(test).length / rows.length : 0;
const atRho = (r: LeafRow) => r.rho >= PARITY_TARGETS.rho;
const atAgreement = (r: LeafRow) => r.agreement >= PARITY_TARGETS.agreement;

/** A leaf's badness for ordering: the further below either target, the worse. */
function shortfall(r: LeafRow): number {
  return Math.max(PARITY_TARGETS.rho - r.rho, 0) + Math.max(PARITY_TARGETS.agreement - r.agreement, 0);
}

export function wholeTreeReport(pairs: readonly { reference: Tree; ours: Tree }[]): WholeTreeReport {
  const names = new Set<string>();
  for (const p of pairs) for (const leaf of numericLeaves(p.reference)) names.add(leaf);
  const leaves = [...names].map((leaf) => leafRow(leaf, pairs));
  const byFamily = new Map<string, LeafRow[]>();
  for (const row of leaves) {
    const list = byFamily.get(row.family) ?? [];
    list.push(row);
    byFamily.set(row.family, list);
  }
  const families = [...byFamily].map(([family, rows]) => ({
    family,
    leaves: rows.length,
    atRho: share(rows, atRho),
    atAgreement: share(rows, atAgreement),
    medianRho: median(rows.map((r) => r.rho)),
    worst: rows.reduce((w, r) => (shortfall(r) > shortfall(w) ? r : w)),
  }));
  const means = leaves.filter((r) => /\.mean(\[\d+\])?$/.test(r.name) || r.family === r.name);
  return {
    recordings: pairs.length,
    leaves,
    families,
    shareRho: share(leaves, atRho),
    shareAgreement: share(leaves, atAgreement),
    shareBoth: share(leaves, (r) => r.pass),
    medianAgreement: median(leaves.map((r) => r.agreement)),
    meanShareRho: share(means, atRho),
    meanShareAgreement: share(means, atAgreement),
  };
}

export const WHOLE_TREE_TARGETS = { shareRho: 0.97, shareAgreement: 0.9, medianAgreement: 0.9 } as const;

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/**
 * The summary (shares at target against issue 37's goals), one line per descriptor family (worst
 * families first) and the `worst` worst leaves.
 */
export function formatWholeTreeReport(report: WholeTreeReport, worst = 40): string {
  const t = WHOLE_TREE_TARGETS;
  const verdict = (ok: boolean) => (ok ? 'pass' : 'FAIL');
  const summary = [
    `whole tree: ${report.leaves.length} numeric leaves over ${report.recordings} recordings`,
    `leaves with ρ ≥ ${PARITY_TARGETS.rho}: ${pct(report.shareRho)} (target ≥ ${pct(t.shareRho)}) ${verdict(report.shareRho >= t.shareRho)}`,
    `leaves with filter agreement ≥ ${PARITY_TARGETS.agreement}: ${pct(report.shareAgreement)} (target ≥ ${pct(t.shareAgreement)}) ${verdict(report.shareAgreement >= t.shareAgreement)}`,
    `median filter agreement: ${report.medianAgreement.toFixed(3)} (target ≥ ${t.medianAgreement}) ${verdict(report.medianAgreement >= t.medianAgreement)}`,
    `leaves at both targets: ${pct(report.shareBoth)}`,
    `mean statistic only: ρ ≥ ${PARITY_TARGETS.rho} ${pct(report.meanShareRho)}, agreement ≥ ${PARITY_TARGETS.agreement} ${pct(report.meanShareAgreement)}`,
  ];
  const families = [...report.families].sort(
    (a, b) => a.atRho + a.atAgreement - (b.atRho + b.atAgreement) || a.family.localeCompare(b.family),
  );
  const fw = Math.max(...families.map((f) => f.family.length), 'descriptor'.length);
  const familyLines = [
    `${'descriptor'.padEnd(fw)}  leaves  ρ≥${PARITY_TARGETS.rho}  agr≥${PARITY_TARGETS.agreement}  median ρ  worst leaf (ρ, agreement)`,
    ...families.map(
      (f) =>
        `${f.family.padEnd(fw)}  ${String(f.leaves).padStart(6)}  ${pct(f.atRho).padStart(6)}  ${pct(f.atAgreement).padStart(7)}  ${f.medianRho.toFixed(3).padStart(8)}  ${f.worst.name.slice(f.family.length) || '(value)'} (${f.worst.rho.toFixed(2)}, ${f.worst.agreement.toFixed(2)})`,
    ),
  ];
  const worstLeaves = [...report.leaves]
    .filter((r) => !r.pass)
    .sort((a, b) => shortfall(b) - shortfall(a) || a.name.localeCompare(b.name))
    .slice(0, worst);
  const lw = Math.max(...worstLeaves.map((r) => r.name.length), 'leaf'.length);
  const worstLines = [
    `${'leaf'.padEnd(lw)}   n       ρ  agreement`,
    ...worstLeaves.map(
      (r) =>
        `${r.name.padEnd(lw)}  ${String(r.n).padStart(2)}  ${r.rho.toFixed(3).padStart(6)}  ${r.agreement.toFixed(3).padStart(9)}${r.constantReference ? '  (reference constant)' : ''}`,
    ),
  ];
  return [
    ...summary,
    '',
    'per descriptor (worst first):',
    ...familyLines,
    '',
    `worst ${worstLeaves.length} leaves:`,
    ...worstLines,
  ].join('\n');
}
