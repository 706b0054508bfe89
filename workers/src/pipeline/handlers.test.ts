import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '@earshot/common';
import { SoundStorage } from '@earshot/services';
import { describe, expect, it } from 'vitest';
import type { JobContext } from '../jobs/registry.ts';
import { PROBE_FILE, SIGNAL_FILE } from './hand-off.ts';
import { reporter, STAGE_HANDLERS } from './handlers.ts';
import type { PipelineStore } from './store.ts';
import type { MediaTools } from './tools.ts';

/** A job context whose progress writes take `delayMs` each and are recorded when they land. */
function slowContext(delayMs: number, landed: number[]): JobContext {
  return {
    name: 'media',
    soundId: 1,
    jobId: '1-media',
    attempt: 1,
    maxAttempts: 3,
    signal: new AbortController().signal,
    logger: createLogger('silent'),
    progress: (percent) =>
      new Promise((resolve) =>
        setTimeout(() => {
          landed.push(percent);
          resolve();
        }, delayMs),
      ),
  };
}

describe("a stage's progress reporter", () => {
  it('has every progress write landed, in order, before the stage saves, and writes none after', async () => {
    const landed: number[] = [];
    const progress = reporter(slowContext(30, landed));
    progress.report(20);
    progress.report(25); // under 10 % more: not written
    progress.report(60);
    progress.report(100);
    await progress.settle();
    // A write landing after the stage's save would name the stage again and undo its advance.
    expect(landed).toEqual([20, 60, 100]);
    progress.report(100);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(landed).toEqual([20, 60, 100]);
  });

  it('goes on when a progress write fails', async () => {
    const progress = reporter({
      ...slowContext(0, []),
      progress: () => Promise.reject(new Error('catalogue down')),
    });
    progress.report(50);
    await expect(progress.settle()).resolves.toBeUndefined();
  });
});

describe('the handover stage', () => {
  it('has removed the hand-off folder by the time the catalogue records the sound as processed', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'earshot-handover-'));
    try {
      const storage = new SoundStorage(dataDir);
      const soundId = 42;
      for (const name of [PROBE_FILE, SIGNAL_FILE]) {
        await fs.mkdir(path.dirname(storage.workFile(soundId, name)), { recursive: true });
        await fs.writeFile(storage.workFile(soundId, name), 'x');
      }
      // A reader that sees "Processed" (the fault test, the API, a reprocess starting over) must find
      // no `work/`: what the folder holds at the moment the record is written is what it could see.
      const atFinish: string[][] = [];
      const store = {
        finishProcessing: async (id: number) => {
          atFinish.push(await fs.readdir(storage.soundDir(id)));
          return 'pending_moderation' as const;
        },
      } as Pick<PipelineStore, 'finishProcessing'> as PipelineStore;
      const ctx = { ...slowContext(0, []), name: 'handover', soundId, jobId: `${soundId}-handover` };
      await STAGE_HANDLERS.handover(ctx, { store, storage, tools: {} as MediaTools });
      expect(atFinish).toEqual([[]]);
      expect(await fs.readdir(storage.soundDir(soundId))).toEqual([]);
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});
