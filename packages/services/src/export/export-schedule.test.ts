import { encodeChangeCursor } from '@earshot/catalogue';
import { describe, expect, it } from 'vitest';
import { exportDue } from './export-schedule.ts';

/** When the export job writes a new export: the rule docs/api.md states, case by case. */
describe('exportDue', () => {
  const schedule = { settleMs: 10 * 60_000, maxAgeMs: 6 * 3_600_000 };
  const at = (iso: string) => new Date(iso);
  const exported = {
    created: '2026-12-01T12:00:00.000Z',
    cursor: encodeChangeCursor({ seq: '40', soundId: 7 }),
  };
  const change = (seq: string, soundId: number, changedAt: string) => ({
    position: { seq, soundId },
    changedAt: at(changedAt),
  });

  it('is due at once without an export, even on an empty catalogue', () => {
    expect(exportDue(undefined, undefined, at('2026-12-01T12:00:00Z'), schedule)).toBe('no export yet');
  });

  it('is not due while nothing changed after the export, however old it is', () => {
    expect(exportDue(exported, undefined, at('2027-01-01T00:00:00Z'), schedule)).toBeUndefined();
    const last = change('40', 7, '2026-12-01T11:59:00Z');
    expect(exportDue(exported, last, at('2027-01-01T00:00:00Z'), schedule)).toBeUndefined();
  });

  it('is due once the changes after the export have settled, not before', () => {
    for (const last of [change('41', 1, '2026-12-01T12:30:00Z'), change('40', 8, '2026-12-01T12:30:00Z')]) {
      expect(exportDue(exported, last, at('2026-12-01T12:39:59Z'), schedule)).toBeUndefined();
      expect(exportDue(exported, last, at('2026-12-01T12:40:00Z'), schedule)).toBe('changes settled');
    }
  });

  it('is due when changes never settle but the export is older than the maximum age', () => {
    const busy = change('900', 3, '2026-12-01T17:59:59Z');
    expect(exportDue(exported, busy, at('2026-12-01T17:59:59Z'), schedule)).toBeUndefined();
    expect(exportDue(exported, busy, at('2026-12-01T18:00:00Z'), schedule)).toBe('export too old');
  });
});
