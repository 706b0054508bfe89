/**
 * Variant-B parity (issue 37): each sound field against its counterpart in the reference extractor's
 * output, derived the way Freesound consolidates that output into sound fields (../shared/spec/
 * UPSTREAM-FACTS.md §4, ../shared/reference/ANALYSIS.md §1.5–1.6), floats rounded to 3 decimals as
 * Freesound rounds them. Numeric and vector fields get the whole-tree report's figures (Spearman ρ and
 * filter agreement, per dimension for vectors); categorical fields and event lists the share of
 * recordings that agree. Pure: takes the trees already read.
 */

import { midiToNoteName } from '@earshot/common/notes';
import { frequencyToMidi } from '../descriptors/pitch.ts';
import type { VariantB } from '../descriptors/types.ts';
import { isLoop } from '../descriptors/variant-b.ts';
import { PARITY_TARGETS, valueAt as valueAtPath } from './parity-report.ts';
import { type LeafRow, leafRow, numericLeaves } from './whole-tree-report.ts';

type Tree = Record<string, unknown>;
type Field = keyof VariantB;

export type CounterpartKind = 'numeric' | 'vector' | 'categorical' | 'events';

export interface Counterpart {
  field: Field;
  kind: CounterpartKind;
  /** The reference paths the counterpart reads (a field is compared only where all of them exist). */
  reads: readonly string[];
  /** How Freesound derives the field from the reference extractor's output. */
  how: string;
  value(reference: Tree): number | number[] | string | boolean | undefined;
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/** A number at a path, or the `mean` of the statistics there (a scalar the reference writes either way). */
function scalar(tree: Tree, path: string): number | undefined {
  const v = valueAtPath(tree, path);
  if (typeof v === 'number') return v;
  const mean = (v as Tree | undefined)?.mean;
  return typeof mean === 'number' ? mean : undefined;
}

const read =
  (path: string) =>
  (tree: Tree): number | undefined => {
    const v = scalar(tree, path);
    return v === undefined ? undefined : round3(v);
  };

const readVector =
  (path: string) =>
  (tree: Tree): number[] | undefined => {
    const v = valueAtPath(tree, path);
    return Array.isArray(v) ? v.map((x) => round3(x as number)) : undefined;
  };

/** The reference writes some keys with flats; the contract names the twelve notes with sharps. */
const SHARP_OF: Readonly<Record<string, string>> = { Db: 'C#', Eb: 'D#', Gb: 'F#', Ab: 'G#', Bb: 'A#' };

/** ac-audio-extractor's loop rule (variant-b.ts) on the reference's loop estimate. */
const loopIn = (tree: Tree): boolean | undefined => {
  const confidence = scalar(tree, 'rhythm.bpm_loop_confidence');
  return confidence === undefined ? undefined : isLoop(confidence);
};

/** The MIDI note of the reference pitch track's median (ac-audio-extractor's note), 0 without one. */
function noteMidi(tree: Tree): number | undefined {
  const median = valueAtPath(tree, 'lowlevel.pitch.median');
  if (typeof median !== 'number') return undefined;
  return median > 0 ? frequencyToMidi(median) : 0;
}

const numeric = (field: Field, path: string, how = `\`${path}\``): Counterpart => ({
  field,
  kind: 'numeric',
  reads: [path],
  how,
  value: read(path),
});

const stat = (field: Field, path: string, statistic = 'mean'): Counterpart =>
  numeric(field, `${path}.${statistic}`);

const vector = (field: Field, path: string): Counterpart => ({
  field,
  kind: 'vector',
  reads: [path],
  how: `\`${path}\`, per dimension`,
  value: readVector(path),
});

/** Every variant-B field with a counterpart in the reference extractor's output. */
export const VARIANT_B_COUNTERPARTS: readonly Counterpart[] = [
  numeric('amplitude_peak_ratio', 'sfx.max_to_total'),
  numeric('beat_count', 'rhythm.beats_count'),
  stat('beat_loudness', 'rhythm.beats_loudness'),
  {
    field: 'bpm',
    kind: 'numeric',
    reads: ['rhythm.bpm', 'rhythm.bpm_loop', 'rhythm.bpm_loop_confidence'],
    how: 'round(`rhythm.bpm_loop`) for a loop (`bpm_loop_confidence` > 0.95), else round(`rhythm.bpm`)',
    value: (t) => {
      const loop = loopIn(t);
      const v = scalar(t, loop ? 'rhythm.bpm_loop' : 'rhythm.bpm');
      return loop === undefined || v === undefined ? undefined : Math.round(v);
    },
  },
  {
    field: 'bpm_confidence',
    kind: 'numeric',
    reads: ['rhythm.bpm_confidence', 'rhythm.bpm_loop_confidence'],
    how: '`rhythm.bpm_loop_confidence` for a loop, else clip(`rhythm.bpm_confidence` / 5, 0, 1)',
    value: (t) => {
      const loop = loopIn(t);
      const v = scalar(t, loop ? 'rhythm.bpm_loop_confidence' : 'rhythm.bpm_confidence');
      if (loop === undefined || v === undefined) return undefined;
      return round3(loop ? v : Math.min(1, Math.max(0, v / 5)));
    },
  },
  numeric('decay_strength', 'sfx.strongdecay'),
  stat('dissonance', 'lowlevel.dissonance'),
  numeric('duration_effective', 'sfx.effective_duration'),
  numeric('dynamic_range', 'lowlevel.loudness_ebu128.loudness_range'),
  vector('hpcp', 'tonal.hpcp.mean'),
  stat('hpcp_crest', 'tonal.hpcp_crest'),
  stat('hpcp_entropy', 'tonal.hpcp_entropy'),
  stat('inharmonicity', 'sfx.inharmonicity'),
  numeric('log_attack_time', 'sfx.logattacktime'),
  numeric('loudness', 'lowlevel.loudness_ebu128.integrated'),
  vector('mfcc', 'lowlevel.mfcc.mean'),
  stat('note_confidence', 'lowlevel.pitch_instantaneous_confidence', 'median'),
  {
    field: 'note_midi',
    kind: 'numeric',
    reads: ['lowlevel.pitch.median'],
    how: 'round(69 + 12·log2(`lowlevel.pitch.median` / 440))',
    value: noteMidi,
  },
  numeric('onset_count', 'rhythm.onset_count'),
  stat('pitch', 'lowlevel.pitch'),
  stat('pitch_max', 'lowlevel.pitch', 'max'),
  stat('pitch_min', 'lowlevel.pitch', 'min'),
  stat('pitch_salience', 'lowlevel.pitch_salience'),
  stat('pitch_var', 'lowlevel.pitch', 'var'),
  stat('silence_rate', 'lowlevel.silence_rate_30dB'),
  stat('spectral_centroid', 'lowlevel.spectral_centroid'),
  stat('spectral_complexity', 'lowlevel.spectral_complexity'),
  stat('spectral_crest', 'lowlevel.spectral_crest'),
  stat('spectral_energy', 'lowlevel.spectral_energy'),
  stat('spectral_entropy', 'lowlevel.spectral_entropy'),
  stat('spectral_flatness', 'lowlevel.spectral_flatness_db'),
  stat('spectral_rolloff', 'lowlevel.spectral_rolloff'),
  stat('spectral_skewness', 'lowlevel.spectral_skewness'),
  stat('spectral_spread', 'lowlevel.spectral_spread'),
  {
    field: 'start_time',
    kind: 'numeric',
    reads: ['lowlevel.sound_start_frame'],
    how: "`lowlevel.sound_start_frame` × 2048 / 44100 s (Freesound's conversion)",
    value: (t) => {
      const frame = scalar(t, 'lowlevel.sound_start_frame');
      return frame === undefined ? undefined : round3((frame * 2048) / 44100);
    },
  },
  numeric('temporal_centroid', 'sfx.temporal_centroid'),
  numeric('temporal_centroid_ratio', 'sfx.tc_to_total'),
  numeric('temporal_decrease', 'sfx.temporal_decrease'),
  numeric('temporal_skewness', 'sfx.temporal_skewness'),
  numeric('temporal_spread', 'sfx.temporal_spread'),
  numeric('tonality_confidence', 'tonal.key.strength'),
  vector('tristimulus', 'sfx.tristimulus.mean'),
  stat('zero_crossing_rate', 'lowlevel.zerocrossingrate'),
  {
    field: 'loopable',
    kind: 'categorical',
    reads: ['rhythm.bpm_loop_confidence'],
    how: '`rhythm.bpm_loop_confidence` > 0.95',
    value: loopIn,
  },
  {
    field: 'note_name',
    kind: 'categorical',
    reads: ['lowlevel.pitch.median'],
    how: 'the name of `note_midi`\'s counterpart ("" for 0)',
    value: (t) => {
      const midi = noteMidi(t);
      return midi === undefined ? undefined : midi > 0 ? midiToNoteName(midi) : '';
    },
  },
  {
    field: 'tonality',
    kind: 'categorical',
    reads: ['tonal.key.key', 'tonal.key.scale'],
    how: '`tonal.key.key` (spelt with sharps, as the contract names the twelve notes) + " " + `tonal.key.scale`',
    value: (t) => {
      const key = valueAtPath(t, 'tonal.key.key');
      const scale = valueAtPath(t, 'tonal.key.scale');
      return typeof key === 'string' && typeof scale === 'string'
        ? `${SHARP_OF[key] ?? key} ${scale}`
        : undefined;
    },
  },
  {
    field: 'beat_times',
    kind: 'events',
    reads: ['rhythm.beats_position'],
    how: '`rhythm.beats_position`',
    value: readVector('rhythm.beats_position'),
  },
  {
    field: 'onset_times',
    kind: 'events',
    reads: ['rhythm.onset_times'],
    how: '`rhythm.onset_times`',
    value: readVector('rhythm.onset_times'),
  },
];

/** Variant-B fields the reference extractor's output has no counterpart for, and why. */
export const VARIANT_B_WITHOUT_COUNTERPART: Readonly<Partial<Record<Field, string>>> = {
  boominess:
    'an AudioCommons timbral model (timbral_models in ac-audio-extractor), not in the extractor output',
  brightness: 'an AudioCommons timbral model, not in the extractor output',
  depth: 'an AudioCommons timbral model, not in the extractor output',
  hardness: 'an AudioCommons timbral model, not in the extractor output',
  roughness: 'an AudioCommons timbral model, not in the extractor output',
  sharpness: 'an AudioCommons timbral model, not in the extractor output',
  warmth: 'an AudioCommons timbral model, not in the extractor output',
  reverbness: "AudioCommons' RT60 classifier, run on the audio, not in the extractor output",
  single_event: "ac-audio-extractor's own event count on the audio's envelope, not in the extractor output",
  chord_count: 'the current extractor writes no chords (its tonal group holds the key only)',
  chord_progression: 'the current extractor writes no chords (its tonal group holds the key only)',
};

/** Two event lists agree when they have the same length and each event is within half a 512-sample hop. */
export const EVENT_TOLERANCE_S = 256 / 44100 + 0.0005;

/** The counterparts of one reference tree as a flat variant-B-shaped record (fields it lacks left out). */
export function counterpartValues(reference: Tree): Partial<Record<Field, unknown>> {
  const out: Partial<Record<Field, unknown>> = {};
  for (const c of VARIANT_B_COUNTERPARTS) {
    const v = c.value(reference);
    if (v !== undefined) out[c.field] = v;
  }
  return out;
}

/** Our variant-B values restricted to the numeric and vector fields, as a flat tree for the leaf report. */
function numericTree(values: Partial<Record<Field, unknown>>, fields: ReadonlySet<Field>): Tree {
  const out: Tree = {};
  for (const f of fields) if (values[f] !== undefined) out[f] = values[f];
  return out;
}

export interface CategoricalRow {
  field: Field;
  kind: 'categorical' | 'events';
  n: number;
  agreeing: number;
  share: number;
  pass: boolean;
}

export interface VariantBReport {
  recordings: number;
  /** One row per numeric field and per dimension of a vector field (`hpcp[4]`). */
  rows: LeafRow[];
  categorical: CategoricalRow[];
}

export function eventsAgree(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => Math.abs(x - b[i]) <= EVENT_TOLERANCE_S);
}

/**
 * The report over pairs of (reference tree, our variant B). `fields` restricts it (the unseen
 * comparison keeps only the fields its reference reproduces).
 */
export function variantBReport(
  pairs: readonly { reference: Tree; ours: Partial<Record<Field, unknown>> }[],
  fields: ReadonlySet<Field> = new Set(VARIANT_B_COUNTERPARTS.map((c) => c.field)),
): VariantBReport {
  const counterparts = VARIANT_B_COUNTERPARTS.filter((c) => fields.has(c.field));
  const numericFields = new Set(
    counterparts.filter((c) => c.kind === 'numeric' || c.kind === 'vector').map((c) => c.field),
  );
  const flat = pairs.map((p) => ({
    reference: numericTree(counterpartValues(p.reference), numericFields),
    ours: numericTree(p.ours, numericFields),
  }));
  const names = new Set<string>();
  for (const p of flat) for (const leaf of numericLeaves(p.reference)) names.add(leaf);
  const rows = [...names].map((leaf) => leafRow(leaf, flat));
  const categorical = counterparts
    .filter((c) => c.kind === 'categorical' || c.kind === 'events')
    .map((c): CategoricalRow => {
      let n = 0;
      let agreeing = 0;
      for (const p of pairs) {
        const r = c.value(p.reference);
        const o = p.ours[c.field];
        if (r === undefined || o === undefined) continue;
        n++;
        const same = c.kind === 'events' ? eventsAgree(r as number[], o as number[]) : r === o;
        if (same) agreeing++;
      }
      const share = n ? agreeing / n : 0;
      return {
        field: c.field,
        kind: c.kind as 'categorical' | 'events',
        n,
        agreeing,
        share,
        pass: n > 0 && share >= PARITY_TARGETS.agreement,
      };
    });
  return { recordings: pairs.length, rows, categorical };
}

/** The report as text: numeric rows (fields in order, vector dimensions one per line), then categorical. */
export function formatVariantBReport(report: VariantBReport): string {
  const order = new Map(VARIANT_B_COUNTERPARTS.map((c, i) => [c.field as string, i]));
  const dim = (name: string) => Number(/\[(\d+)\]$/.exec(name)?.[1] ?? -1);
  const rows = [...report.rows].sort(
    (a, b) => (order.get(a.family) ?? 0) - (order.get(b.family) ?? 0) || dim(a.name) - dim(b.name),
  );
  const w = Math.max(...rows.map((r) => r.name.length), 'field'.length, 22);
  const fields = new Map<string, boolean>();
  for (const r of rows) fields.set(r.family, (fields.get(r.family) ?? true) && r.pass);
  const passedRows = rows.filter((r) => r.pass).length;
  const passedFields = [...fields.values()].filter(Boolean).length;
  const failing = [...fields].filter(([, ok]) => !ok).map(([f]) => f);
  const cats = report.categorical;
  const cw = Math.max(...cats.map((c) => c.field.length), 'field'.length);
  return [
    `variant B: ${fields.size} numeric fields with a reference counterpart (${rows.length} rows, vectors per dimension) over ${report.recordings} recordings; targets ρ ≥ ${PARITY_TARGETS.rho} and filter agreement ≥ ${PARITY_TARGETS.agreement}`,
    `${'field'.padEnd(w)}   n       ρ  agreement  result`,
    ...rows.map(
      (r) =>
        `${r.name.padEnd(w)}  ${String(r.n).padStart(3)}  ${r.rho.toFixed(3).padStart(6)}  ${r.agreement.toFixed(3).padStart(9)}  ${r.pass ? 'pass' : 'FAIL'}${r.constantReference ? '  (reference constant)' : ''}`,
    ),
    '',
    `variant B rows at both targets: ${passedRows} of ${rows.length}; fields with every row at target: ${passedFields} of ${fields.size}${failing.length ? ` (failing: ${failing.join(', ')})` : ''}`,
    '',
    `variant B, categorical fields and event lists: share of recordings that agree (same value; events: same count, each within ${(EVENT_TOLERANCE_S * 1000).toFixed(1)} ms), target ≥ ${PARITY_TARGETS.agreement}`,
    `${'field'.padEnd(cw)}  kind           n  agree   share  result`,
    ...cats.map(
      (c) =>
        `${c.field.padEnd(cw)}  ${c.kind.padEnd(11)}  ${String(c.n).padStart(3)}  ${String(c.agreeing).padStart(5)}  ${(100 * c.share).toFixed(1).padStart(5)}%  ${c.pass ? 'pass' : 'FAIL'}`,
    ),
    '',
    `variant B categorical fields at target: ${cats.filter((c) => c.pass).length} of ${cats.length}`,
  ].join('\n');
}
