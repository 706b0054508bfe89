import { describe, expect, it } from 'vitest';
import { VARIANT_B_TYPES } from '../descriptors/variant-b-types.ts';
import {
  counterpartValues,
  eventsAgree,
  formatVariantBReport,
  VARIANT_B_COUNTERPARTS,
  VARIANT_B_WITHOUT_COUNTERPART,
  variantBReport,
} from './variant-b-report.ts';

const reference = (x: number, loop = false) => ({
  lowlevel: {
    pitch: { mean: 200 + x, median: 440, min: 50, max: 900, var: 10 },
    pitch_instantaneous_confidence: { median: 0.8 },
    sound_start_frame: 3,
  },
  rhythm: { bpm: 120.4 + x, bpm_confidence: 4, bpm_loop: 99.6, bpm_loop_confidence: loop ? 0.97 : 0.5 },
  tonal: { key: { key: 'Bb', scale: 'minor', strength: 0.5 + x / 100 } },
  sfx: { tristimulus: { mean: [0.5, 0.3, x / 10] } },
});

describe('variant-B counterparts', () => {
  it('name every variant-B field once: a counterpart or the reason it has none', () => {
    const withCounterpart = VARIANT_B_COUNTERPARTS.map((c) => c.field as string);
    const without = Object.keys(VARIANT_B_WITHOUT_COUNTERPART);
    expect(new Set(withCounterpart).size).toBe(withCounterpart.length);
    expect([...withCounterpart, ...without].sort()).toEqual(Object.keys(VARIANT_B_TYPES).sort());
  });

  it('derive each field as Freesound does from the reference output', () => {
    const plain = counterpartValues(reference(1));
    expect(plain).toMatchObject({
      pitch: 201,
      note_midi: 69,
      note_name: 'A4',
      note_confidence: 0.8,
      start_time: Math.round(((3 * 2048) / 44100) * 1000) / 1000,
      bpm: 121,
      bpm_confidence: 0.8,
      loopable: false,
      tonality: 'A# minor',
      tristimulus: [0.5, 0.3, 0.1],
    });
    expect(counterpartValues(reference(1, true))).toMatchObject({
      bpm: 100,
      bpm_confidence: 0.97,
      loopable: true,
    });
  });

  it('scores numeric fields per dimension and categorical fields by the share that agrees', () => {
    const xs = [1, 2, 3, 4, 5, 6, 7, 8];
    const pairs = xs.map((x) => ({
      reference: reference(x),
      ours: { ...counterpartValues(reference(x)), pitch: 300 - x, tonality: x <= 6 ? 'A# minor' : 'C major' },
    }));
    const report = variantBReport(pairs);
    const row = (name: string) => report.rows.find((r) => r.name === name);
    expect(row('tristimulus[2]')?.pass).toBe(true);
    expect(row('pitch')?.rho).toBeCloseTo(-1, 6);
    expect(row('pitch')?.pass).toBe(false);
    const tonality = report.categorical.find((c) => c.field === 'tonality');
    expect(tonality).toMatchObject({ n: 8, agreeing: 6, share: 0.75, pass: false });
    expect(formatVariantBReport(report)).toContain('failing: pitch');
  });

  it('matches event lists by count and time', () => {
    expect(eventsAgree([0.1, 0.5], [0.102, 0.497])).toBe(true);
    expect(eventsAgree([0.1, 0.5], [0.1])).toBe(false);
    expect(eventsAgree([0.1], [0.12])).toBe(false);
  });
});
