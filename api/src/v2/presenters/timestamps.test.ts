import { describe, expect, it } from 'vitest';
import { v2Timestamp } from './timestamps.ts';

describe('v2Timestamp', () => {
  it('is the UTC ISO form to the millisecond, without a zone, for any date', () => {
    const dates = [
      Date.UTC(2026, 10, 29, 21, 58, 28, 766),
      Date.UTC(2026, 0, 1, 0, 0, 0, 0),
      Date.UTC(1999, 11, 31, 23, 59, 59, 999),
      Date.UTC(2024, 1, 29, 9, 5, 7, 5),
      Date.UTC(2024, 1, 29, 9, 5, 7, 50),
      0,
      -1,
      Date.UTC(999, 2, 3, 4, 5, 6, 7),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      Date.UTC(10000, 0, 1),
      Date.UTC(10000, 0, 1) - 1,
      Date.parse('0000-01-01T00:00:00Z'),
      Date.parse('0000-01-01T00:00:00Z') - 1,
      Date.UTC(-1, 0, 1),
      Date.UTC(2026, 11, 31, 23, 59, 59, 999),
      Date.UTC(2027, 0, 1),
      -86_400_000,
      -86_400_001,
    ];
    // And a spread of instants over four centuries (before 1970 too), each millisecond digit count
    // included, and runs of instants within one day.
    for (let i = 0; i < 2000; i++) dates.push(Math.floor(((i * 7919) % 2000) * 6.4e9 - 6.4e12 + i * 37));
    for (let i = 0; i < 2000; i++) dates.push(Date.UTC(2026, 10, 29) + i * 43_201);
    for (const ms of dates) {
      const date = new Date(ms);
      expect(v2Timestamp(date)).toBe(date.toISOString().slice(0, 23));
    }
  });

  it('refuses an invalid date as toISOString does', () => {
    expect(v2Timestamp(new Date(Date.UTC(2026, 0, 1)))).toBe('2026-01-01T00:00:00.000');
    expect(() => v2Timestamp(new Date(Number.NaN))).toThrow(RangeError);
  });
});
