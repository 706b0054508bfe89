import { describe, expect, it } from 'vitest';
import { retryWhileUnavailable } from './while-unavailable.ts';

const lost = () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });

describe('retryWhileUnavailable', () => {
  it('runs the work again while the catalogue cannot be reached, and answers what it finally returns', async () => {
    let calls = 0;
    const retried: number[] = [];
    const answer = await retryWhileUnavailable(
      async () => {
        calls++;
        if (calls < 3) throw lost();
        return 'done';
      },
      { onRetry: (_err, attempt) => retried.push(attempt) },
    );
    expect(answer).toBe('done');
    expect(calls).toBe(3);
    expect(retried).toEqual([1, 2]);
  });

  it('does not repeat work that failed for another reason', async () => {
    let calls = 0;
    const refused = new Error('duplicate key value violates unique constraint');
    await expect(
      retryWhileUnavailable(async () => {
        calls++;
        throw refused;
      }),
    ).rejects.toBe(refused);
    expect(calls).toBe(1);
  });

  it('gives up with the last failure once its time is over', async () => {
    let calls = 0;
    const err = await retryWhileUnavailable(
      async () => {
        calls++;
        throw lost();
      },
      { withinMs: 250 },
    ).catch((e: unknown) => e);
    expect((err as { code?: string }).code).toBe('ECONNRESET');
    expect(calls).toBeGreaterThan(1);
  });
});
