import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readAnalysisHandOff, writeAnalysisHandOff, writeAtomically } from './hand-off.ts';
import type { AnalysisOutput } from './tools.ts';

/** A stage attempt that was stopped (a timeout, a lost lease) while its hand-off was being written. */
describe('hand-off files of a stopped attempt', () => {
  let work: string;
  beforeEach(async () => {
    work = await fs.mkdtemp(path.join(os.tmpdir(), 'earshot-hand-off-'));
  });
  afterEach(async () => {
    await fs.rm(work, { recursive: true, force: true });
  });

  const output: AnalysisOutput = {
    analysisFile: 'analysis.json',
    analysis: {
      analysisA: {} as never,
      analysisB: {} as never,
      values: {} as never,
      analyzer: 'test',
    },
  };

  it('publishes no analysis when the attempt is stopped while the analysis runs, and keeps what was there', async () => {
    const dir = path.join(work, 'analysis');
    const live = new AbortController();
    await writeAnalysisHandOff(
      dir,
      async (temp) => {
        await fs.writeFile(path.join(temp, 'analysis.json'), '"live"');
        return output;
      },
      live.signal,
    );
    const stopped = new AbortController();
    const writing = writeAnalysisHandOff(
      dir,
      async (temp) => {
        // The descriptors do not stop on abort: the attempt is stopped while they run to the end.
        stopped.abort(new Error('job timed out'));
        await fs.writeFile(path.join(temp, 'analysis.json'), '"stale"');
        return output;
      },
      stopped.signal,
    );
    await expect(writing).rejects.toThrow('job timed out');
    expect(await fs.readdir(work)).toEqual(['analysis']);
    expect(await fs.readFile(path.join(dir, 'analysis.json'), 'utf8')).toBe('"live"');
    expect(await readAnalysisHandOff(dir)).toBeTruthy();
  });

  it('writes no file, and no folder, once the attempt is stopped', async () => {
    const file = path.join(work, 'work', 'probe.json');
    const stopped = new AbortController();
    stopped.abort(new Error('lease lost'));
    await expect(writeAtomically(file, '{}', stopped.signal)).rejects.toThrow('lease lost');
    expect(await fs.readdir(work)).toEqual([]);
    await expect(
      writeAnalysisHandOff(path.join(work, 'work', 'analysis'), async () => output, stopped.signal),
    ).rejects.toThrow('lease lost');
    expect(await fs.readdir(work)).toEqual([]);
  });
});
