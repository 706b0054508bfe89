import fs from 'node:fs';
import os from 'node:os';
import { fixture } from '@earshot/fixtures';
import { afterEach, describe, expect, it } from 'vitest';
import { exampleAnalysisNeeds } from '../similarity/example-query.ts';
import { ClipAnalysisPool } from './clip-pool.ts';

/**
 * The clip pool's bookkeeping (the per-stage totals the API's /metrics reports), its arrival-order
 * queue, and the lower scheduling priority of its threads, on real clips in real threads.
 */

const needs = exampleAnalysisNeeds();
let pool: ClipAnalysisPool | undefined;

afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

/** Nice values of this process's threads (Linux: /proc/self/task/<tid>/stat, field 19). */
function threadNiceValues(): number[] {
  return fs.readdirSync('/proc/self/task').map((tid) => {
    const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

describe('ClipAnalysisPool', () => {
  it('counts each clip and where its time went', async () => {
    pool = new ClipAnalysisPool(1, { niceness: 0 });
    expect(pool.stats()).toEqual({ clips: 0, waitMs: 0, decodeMs: 0, analysisMs: 0, threadMs: 0 });
    const clip = await pool.analyze(fixture('bits-16'), { needs });
    expect(clip.timings.decodeMs).toBeGreaterThan(0);
    expect(clip.timings.analysisMs).toBeGreaterThan(0);
    const stats = pool.stats();
    expect(stats.clips).toBe(1);
    expect(stats.decodeMs).toBe(clip.timings.decodeMs);
    expect(stats.analysisMs).toBe(clip.timings.analysisMs);
    // The thread's time holds both stages (and its messages).
    expect(stats.threadMs).toBeGreaterThanOrEqual(stats.decodeMs + stats.analysisMs);
    expect(stats.waitMs).toBeGreaterThanOrEqual(0);
  }, 60_000);

  it('answers in arrival order on one thread, the later clips counted as waiting', async () => {
    pool = new ClipAnalysisPool(1, { niceness: 0 });
    const order: number[] = [];
    const jobs = [0, 1, 2].map((i) => pool?.analyze(fixture('bits-16'), { needs }).then(() => order.push(i)));
    expect(pool.waiting).toBe(2);
    await Promise.all(jobs);
    expect(order).toEqual([0, 1, 2]);
    const stats = pool.stats();
    expect(stats.clips).toBe(3);
    // The second waited for the first, the third for both.
    expect(stats.waitMs).toBeGreaterThan(stats.threadMs / 3);
  }, 60_000);

  it('counts a refused clip too (a 400, not a thread failure)', async () => {
    pool = new ClipAnalysisPool(1, { niceness: 0 });
    await expect(pool.analyze(fixture('bad-random'), { needs })).rejects.toThrow();
    expect(pool.stats().clips).toBe(1);
  }, 60_000);

  it.runIf(process.platform === 'linux')(
    'runs its threads `niceness` steps below the caller, the caller unchanged',
    async (context) => {
      const own = os.getPriority(0);
      // At 19 (e.g. the suite run under `nice -n 19`) no step is left below the caller: a lowered
      // thread and one that merely inherited 19 look the same, so nothing here could fail.
      context.skip(own >= 19, 'the caller already runs at nice 19, the lowest priority');
      const before = threadNiceValues();
      pool = new ClipAnalysisPool(1, { niceness: 3 });
      await pool.analyze(fixture('bits-16'), { needs });
      const after = threadNiceValues();
      expect(os.getPriority(0)).toBe(own);
      const lowered = after.filter((nice) => nice === Math.min(19, own + 3)).length;
      const loweredBefore = before.filter((nice) => nice === Math.min(19, own + 3)).length;
      expect(lowered).toBe(loweredBefore + 1);
    },
    60_000,
  );
});
