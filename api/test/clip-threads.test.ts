import { describe, expect, it } from 'vitest';
import { defaultClipThreads } from '../src/build-deps.ts';

describe('defaultClipThreads', () => {
  it('is one per core but the event loop, and two on one or two cores', () => {
    expect(defaultClipThreads(1)).toBe(2);
    expect(defaultClipThreads(2)).toBe(2);
    expect(defaultClipThreads(4)).toBe(3);
    expect(defaultClipThreads(16)).toBe(15);
  });
});
