/**
 * Which leaves of the essentia.js reference reproduce the native extractor's values: compared on the
 * recordings both analysed (the calibration set), leaf by leaf. A leaf is reproduced when its value
 * matches the native one on at least 95% of the recordings — within 10⁻³ of the larger of the native
 * value's magnitude and the leaf's range over the recordings (float32 rounding, never a different
 * definition) — and the values that do not match leave the ranks in place (Spearman ρ ≥ 0.99 with the
 * matching values taken as equal to the native ones; a leaf the native extractor holds constant needs
 * only the matching values). The parity report's figures (ρ, filter agreement) are given beside it; the
 * agreement is not a criterion because values equal to 10⁻⁷ still fall on either side of a quartile where
 * many recordings tie (a `min` of silent frames). Only reproduced leaves may stand in for the native
 * extractor on recordings it never analysed. Pure: takes the trees already read.
 */
import {
  counterpartValues,
  eventsAgree,
  filterAgreement,
  leafFamily,
  leafValue,
  numericLeaves,
  spearman,
  VARIANT_B_COUNTERPARTS,
} from '@earshot/core/testing';

type Tree = Record<string, unknown>;

export const REPRODUCTION = { rho: 0.99, matching: 0.95, tolerance: 1e-3 } as const;

export interface LeafCheck {
  leaf: string;
  family: string;
  /** Recordings with a value on both sides. */
  n: number;
  rho: number;
  agreement: number;
  /** Median over the recordings of |essentia.js − native| / max(|native|, 10⁻⁹). */
  medianRelativeError: number;
  /** Share of the recordings whose value matches the native one (see the module comment). */
  matching: number;
  reproduced: boolean;
}

const isNumber = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

function medianOf(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** One check per leaf the essentia.js reference writes (every numeric leaf of its trees). */
export function checkLeaves(pairs: readonly { native: Tree; essentiaJs: Tree }[]): LeafCheck[] {
  const names = new Set<string>();
  for (const p of pairs) for (const leaf of numericLeaves(p.essentiaJs)) names.add(leaf);
  return [...names].sort().map((leaf) => {
    const native: number[] = [];
    const ours: number[] = [];
    for (const p of pairs) {
      const n = leafValue(p.native, leaf);
      const o = leafValue(p.essentiaJs, leaf);
      if (isNumber(n) && isNumber(o)) {
        native.push(n);
        ours.push(o);
      }
    }
    const relative = native.map((n, i) => Math.abs(ours[i] - n) / Math.max(Math.abs(n), 1e-9));
    const range = Math.max(...native) - Math.min(...native);
    const matches = native.map(
      (n, i) => Math.abs(ours[i] - n) <= REPRODUCTION.tolerance * Math.max(Math.abs(n), range),
    );
    const matching = matches.filter(Boolean).length / native.length;
    const base = {
      leaf,
      family: leafFamily(leaf),
      n: native.length,
      medianRelativeError: medianOf(relative),
      matching,
    };
    if (native.length < 2) return { ...base, rho: 0, agreement: 0, reproduced: false };
    const valuesMatch = matching >= REPRODUCTION.matching;
    if (range === 0) return { ...base, rho: 1, agreement: 1, reproduced: valuesMatch };
    const rho = spearman(native, ours);
    const agreement = filterAgreement(native, ours);
    // The rank test looks at the recordings that do not match only: matching values take the native
    // value, so rounding inside ties (many recordings at one floor value) cannot fail it.
    const snapped = ours.map((o, i) => (matches[i] ? native[i] : o));
    const rankRho = spearman(native, snapped);
    return { ...base, rho, agreement, reproduced: valuesMatch && rankRho >= REPRODUCTION.rho };
  });
}

export interface FamilyCheck {
  family: string;
  leaves: number;
  reproduced: number;
  medianRho: number;
  medianAgreement: number;
  medianRelativeError: number;
  medianMatching: number;
  worst: LeafCheck;
}

export function familyChecks(checks: readonly LeafCheck[]): FamilyCheck[] {
  const byFamily = new Map<string, LeafCheck[]>();
  for (const c of checks) byFamily.set(c.family, [...(byFamily.get(c.family) ?? []), c]);
  return [...byFamily].map(([family, rows]) => ({
    family,
    leaves: rows.length,
    reproduced: rows.filter((r) => r.reproduced).length,
    medianRho: medianOf(rows.map((r) => r.rho)),
    medianAgreement: medianOf(rows.map((r) => r.agreement)),
    medianRelativeError: medianOf(rows.map((r) => r.medianRelativeError).filter(Number.isFinite)),
    medianMatching: medianOf(rows.map((r) => r.matching)),
    worst: rows.reduce((w, r) => (r.matching + r.rho < w.matching + w.rho ? r : w)),
  }));
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/** The validation table: one line per family (families with unreproduced leaves first). */
export function formatChecks(checks: readonly LeafCheck[], recordings: number): string {
  const families = familyChecks(checks).sort(
    (a, b) => a.reproduced / a.leaves - b.reproduced / b.leaves || a.family.localeCompare(b.family),
  );
  const reproduced = checks.filter((c) => c.reproduced).length;
  const w = Math.max(...families.map((f) => f.family.length), 'family'.length);
  return [
    `essentia.js reference against the native extractor on ${recordings} recordings: ${reproduced} of ${checks.length} leaves reproduced (${pct(reproduced / checks.length)}: values within ${REPRODUCTION.tolerance} relative on ≥ ${pct(REPRODUCTION.matching)} of recordings and ρ ≥ ${REPRODUCTION.rho})`,
    `${'family'.padEnd(w)}  leaves  reproduced  matching  median ρ  median agr  median rel. err  worst leaf (matching, ρ, agreement)`,
    ...families.map(
      (f) =>
        `${f.family.padEnd(w)}  ${String(f.leaves).padStart(6)}  ${String(f.reproduced).padStart(10)}  ${pct(f.medianMatching).padStart(8)}  ${f.medianRho.toFixed(3).padStart(8)}  ${f.medianAgreement.toFixed(3).padStart(9)}  ${f.medianRelativeError.toExponential(1).padStart(15)}  ${f.worst.leaf.slice(f.family.length) || '(value)'} (${pct(f.worst.matching)}, ${f.worst.rho.toFixed(2)}, ${f.worst.agreement.toFixed(2)})`,
    ),
  ].join('\n');
}

/**
 * A copy of a reference tree holding only the given leaves: other numbers removed, other vector
 * dimensions set to null (so the kept dimensions keep their index). Strings and lists of events go too.
 */
export function keepLeaves(tree: Tree, keep: ReadonlySet<string>, prefix = ''): Tree {
  const out: Tree = {};
  for (const [key, value] of Object.entries(tree)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'number') {
      if (keep.has(name)) out[key] = value;
    } else if (Array.isArray(value)) {
      const kept = value.map((v, k) => (typeof v === 'number' && keep.has(`${name}[${k}]`) ? v : null));
      if (kept.some((v) => v !== null)) out[key] = kept;
    } else if (value && typeof value === 'object') {
      const sub = keepLeaves(value as Tree, keep, name);
      if (Object.keys(sub).length > 0) out[key] = sub;
    }
  }
  return out;
}

export interface CounterpartCheck {
  field: string;
  kind: string;
  /** Numeric and vector fields: rows (dimensions) reproduced, of all; others: recordings that agree, of all. */
  reproduced: number;
  of: number;
  ok: boolean;
}

/**
 * Which variant-B counterparts the essentia.js reference reproduces on the calibration recordings: a
 * numeric or vector field when every one of its rows passes the leaf check above (on the counterpart
 * values, derived from each tree the same way), a categorical field or an event list when it agrees
 * with the native one on ≥ 95% of the recordings.
 */
export function checkCounterparts(pairs: readonly { native: Tree; essentiaJs: Tree }[]): CounterpartCheck[] {
  const flat = (tree: Tree, kinds: readonly string[]): Tree => {
    const values = counterpartValues(tree);
    const out: Tree = {};
    for (const c of VARIANT_B_COUNTERPARTS)
      if (kinds.includes(c.kind) && values[c.field] !== undefined) out[c.field] = values[c.field];
    return out;
  };
  const leafChecks = checkLeaves(
    pairs.map((p) => ({
      native: flat(p.native, ['numeric', 'vector']),
      essentiaJs: flat(p.essentiaJs, ['numeric', 'vector']),
    })),
  );
  return VARIANT_B_COUNTERPARTS.map((c): CounterpartCheck => {
    if (c.kind === 'numeric' || c.kind === 'vector') {
      const rows = leafChecks.filter((l) => l.family === c.field);
      const reproduced = rows.filter((l) => l.reproduced).length;
      return {
        field: c.field,
        kind: c.kind,
        reproduced,
        of: rows.length,
        ok: rows.length > 0 && reproduced === rows.length,
      };
    }
    let n = 0;
    let agreeing = 0;
    for (const p of pairs) {
      const a = c.value(p.native);
      const b = c.value(p.essentiaJs);
      if (a === undefined || b === undefined) continue;
      n++;
      if (c.kind === 'events' ? eventsAgree(a as number[], b as number[]) : a === b) agreeing++;
    }
    return {
      field: c.field,
      kind: c.kind,
      reproduced: agreeing,
      of: n,
      ok: n > 0 && agreeing / n >= REPRODUCTION.matching,
    };
  });
}

/** The counterpart checks as one line per field. */
export function formatCounterpartChecks(checks: readonly CounterpartCheck[]): string {
  const w = Math.max(...checks.map((c) => c.field.length), 'field'.length);
  const ok = checks.filter((c) => c.ok);
  return [
    `variant-B counterparts the essentia.js reference reproduces on the calibration recordings: ${ok.length} of ${checks.length} (numeric: every row within ${REPRODUCTION.tolerance} on ≥ ${(100 * REPRODUCTION.matching).toFixed(0)}% and ρ ≥ ${REPRODUCTION.rho}; categorical and events: the same on ≥ ${(100 * REPRODUCTION.matching).toFixed(0)}%)`,
    `${'field'.padEnd(w)}  kind         reproduced  used`,
    ...checks.map(
      (c) =>
        `${c.field.padEnd(w)}  ${c.kind.padEnd(11)}  ${`${c.reproduced}/${c.of}`.padStart(10)}  ${c.ok ? 'yes' : 'no'}`,
    ),
  ].join('\n');
}
