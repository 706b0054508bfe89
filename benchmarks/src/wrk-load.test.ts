import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type LoadTarget, startLoadTarget } from './load-target.ts';
import { findWrk, parseWrkSummary, WRK_MISSING, wrkLoad } from './wrk-load.ts';

/** Whether wrk is here: missing means skipped with a reason, unless REQUIRE_SERVICES=1 (as CI runs). */
function wrkAvailable(): boolean {
  if (findWrk()) return true;
  if (process.env.REQUIRE_SERVICES === '1') throw new Error(`${WRK_MISSING} (REQUIRE_SERVICES=1)`);
  console.warn(`[skip] ${WRK_MISSING}`);
  return false;
}

/**
 * wrk through wrk-paths.lua against a real node:http server: the requests are spread over the
 * paths in turn, carry the headers, the 4xx answers are counted, and what wrk says it got is what
 * the server answered.
 */
describe.skipIf(!wrkAvailable())('the wrk load generator', () => {
  let target: LoadTarget;
  let origin = '';
  const seen = { authorized: 0, all: 0, byPath: new Map<string, number>() };

  beforeAll(async () => {
    target = await startLoadTarget((req) => {
      seen.all++;
      if (req.headers.authorization === 'Token k') seen.authorized++;
      seen.byPath.set(req.url ?? '', (seen.byPath.get(req.url ?? '') ?? 0) + 1);
      return undefined;
    });
    origin = target.origin;
  });
  afterAll(() => target.close());
  beforeEach(() => {
    seen.authorized = 0;
    seen.all = 0;
    seen.byPath.clear();
  });

  it.each([1, 2])(
    'walks the paths in turn with %i thread(s) and counts what the server answered',
    async (threads) => {
      const connections = 4;
      const result = await wrkLoad({
        origin,
        paths: ['/sound', '/other', '/missing'],
        headers: { Authorization: 'Token k' },
        connections,
        durationS: 1,
        threads,
      });
      expect(result.errors).toBe(0);
      expect(result.total).toBeGreaterThan(300);
      // Sent requests whose answers came after wrk stopped are seen by the server, not counted by wrk.
      expect(seen.all).toBeGreaterThanOrEqual(result.total);
      expect(seen.all).toBeLessThanOrEqual(result.total + connections);
      expect(seen.authorized).toBe(seen.all);
      // Each thread takes the paths in turn: the three counts differ by at most one per thread.
      const counts = ['/sound', '/other', '/missing'].map((p) => seen.byPath.get(p) ?? 0);
      expect([...seen.byPath.keys()].sort()).toEqual(['/missing', '/other', '/sound']);
      expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(threads);
      // wrk counts the 404s it got: a third of its answers, give or take the ones in flight.
      expect(Math.abs(result.non2xx - result.total / 3)).toBeLessThanOrEqual(connections);
      expect(result.rps).toBeGreaterThan(result.total / 1.5);
      expect(result.rps).toBeLessThan(result.total / 0.9);
      expect(result.p99).toBeGreaterThanOrEqual(result.p50);
      // wrk's CPU time: some, and no more than its threads could run in the second (plus start-up).
      expect(result.cpuUsPerRequest).toBeGreaterThan(0);
      expect((result.cpuUsPerRequest * result.total) / 1e6).toBeLessThan(threads * 1.5);
    },
  );

  it('says what to install when wrk is not on PATH', async () => {
    const saved = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      await expect(wrkLoad({ origin, paths: ['/sound'], connections: 1, durationS: 1 })).rejects.toThrow(
        /apt-get install wrk/,
      );
    } finally {
      process.env.PATH = saved;
    }
  });
});

describe("wrk's summary line", () => {
  it('is read into numbers, and its absence is an error that shows the output', () => {
    expect(parseWrkSummary('Running 1s test\nEARSHOT_WRK requests=12 duration_us=1000 status=0\n')).toEqual({
      requests: 12,
      duration_us: 1000,
      status: 0,
    });
    expect(() => parseWrkSummary('unable to connect to 127.0.0.1:1')).toThrow(/unable to connect/);
  });
});
