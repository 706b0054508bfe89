// Test helper shared by the descriptor test files (not part of the public API).
import { expect } from 'vitest';
import type { VariantB } from '../descriptors/types.ts';
import { VARIANT_B_TYPES } from '../descriptors/variant-b-types.ts';

/** Checks each variant-B field against the contract type. */
export function expectContractTypes(b: VariantB): void {
  expect(Object.keys(b).sort()).toEqual(Object.keys(VARIANT_B_TYPES).sort());
  for (const [name, type] of Object.entries(VARIANT_B_TYPES) as [keyof VariantB, string][]) {
    const v = b[name];
    const where = `${name}=${JSON.stringify(v)}`;
    if (type === 'numeric') expect(typeof v, where).toBe('number');
    if (type === 'integer') expect(Number.isInteger(v), where).toBe(true);
    if (type === 'boolean') expect(typeof v, where).toBe('boolean');
    if (type === 'string') expect(typeof v, where).toBe('string');
    if (type === 'numeric[]')
      expect(Array.isArray(v) && (v as unknown[]).every((x) => typeof x === 'number'), where).toBe(true);
    if (type === 'string[]')
      expect(Array.isArray(v) && (v as unknown[]).every((x) => typeof x === 'string'), where).toBe(true);
  }
  expect(b.hpcp).toHaveLength(36);
  expect(b.mfcc).toHaveLength(13);
  expect(b.tristimulus).toHaveLength(3);
  for (const name of [
    'brightness',
    'warmth',
    'boominess',
    'depth',
    'hardness',
    'roughness',
    'sharpness',
  ] as const) {
    expect(b[name]).toBeGreaterThanOrEqual(0);
    expect(b[name]).toBeLessThanOrEqual(100);
  }
  if (b.note_name) expect(b.note_name).toMatch(/^(A|A#|B|C|C#|D|D#|E|F|F#|G|G#)-?\d$/);
  expect(b.tonality).toMatch(/^(A|A#|B|C|C#|D|D#|E|F|F#|G|G#) (major|minor)$/);
  for (const chord of b.chord_progression) expect(chord).toMatch(/^(A|A#|B|C|C#|D|D#|E|F|F#|G|G#)m?$/);
}
