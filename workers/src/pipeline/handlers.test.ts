import { createLogger } from '@earshot/common';
import { describe, expect, it } from 'vitest';
import type { JobContext } from '../jobs/registry.ts';
import { reporter } from './handlers.ts';

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
