import { closeMatches, lookupFilterField } from './fields.ts';
import type { FieldRef } from './filter-ast.ts';
import { ValueError } from './filter-values.ts';

/** The top-level groups of the full (Essentia-layout) analysis that content filters address. */
export const ANALYSIS_NAMESPACES = ['lowlevel', 'rhythm', 'tonal', 'sfx', 'metadata'] as const;

const SEGMENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Resolves a content-search descriptor name. Consolidated names (`bpm`, `loudness`) are the typed
 * descriptor columns; dotted names (`lowlevel.pitch.mean`, `.lowlevel.mfcc.mean[1]`) are paths into
 * the stored full analysis, a trailing `[i]` selecting one dimension. `known` (fixed-length dotted names)
 * and `variableLength` come from whoever knows the catalogue's descriptors; unset, any well-formed
 * dotted name is accepted.
 */
export function resolveDescriptorName(
  written: string,
  known?: ReadonlySet<string>,
  variableLength?: ReadonlySet<string>,
): FieldRef {
  const name = written.startsWith('.') ? written.slice(1) : written;
  const dim = /\[(\d+)\]$/.exec(name);
  const base = dim ? name.slice(0, dim.index) : name;
  // A per-sound list has no value a range could compare: without this it would match nothing.
  if (variableLength?.has(base)) {
    throw new ValueError(
      `"${written}" is a variable-length descriptor (its length differs from sound to sound) and cannot ` +
        'be filtered on; use a fixed-length descriptor name such as "lowlevel.pitch.mean"',
      0,
    );
  }
  if (!base.includes('.')) {
    const def = lookupFilterField(base);
    if (def && def.source === 'descriptor' && !dim) return { kind: 'field', def };
    throw new ValueError(unknownMessage(written, known), 0);
  }
  const segments = base.split('.');
  const namespaceOk = (ANALYSIS_NAMESPACES as readonly string[]).includes(segments[0]);
  if (!namespaceOk || segments.length > 4 || !segments.every((s) => SEGMENT.test(s))) {
    throw new ValueError(unknownMessage(written, known), 0);
  }
  if (known && !known.has(base)) throw new ValueError(unknownMessage(written, known), 0);
  return { kind: 'analysis', name: name, path: dim ? [...segments, dim[1]] : segments };
}

function unknownMessage(written: string, known?: ReadonlySet<string>): string {
  const candidates = known ? [...known] : ANALYSIS_NAMESPACES.map((n) => `${n}.`);
  const near = closeMatches(written.replace(/^\./, '').replace(/\[\d+\]$/, ''), candidates);
  const hint = near.length ? `; did you mean ${near.map((n) => `"${n}"`).join(', ')}?` : '';
  return (
    `unknown descriptor "${written}" (use a fixed-length descriptor name such as ` +
    `"lowlevel.pitch.mean", or a consolidated one such as "bpm")${hint}`
  );
}
