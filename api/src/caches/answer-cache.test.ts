import { describe, expect, it } from 'vitest';
import { VersionedCache } from './answer-cache.ts';

describe('VersionedCache', () => {
  it('computes once for concurrent and later callers of one version, again for a new version', async () => {
    const cache = new VersionedCache<number>();
    let runs = 0;
    const compute = async () => {
      runs++;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return runs;
    };
    const first = await Promise.all(Array.from({ length: 10 }, () => cache.get('k', '1', compute)));
    expect(first).toEqual(Array(10).fill(1));
    expect(await cache.get('k', '1', compute)).toBe(1);
    expect(runs).toBe(1);
    expect(await cache.get('k', '2', compute)).toBe(2);
    expect(await cache.get('other', '2', compute)).toBe(3);
  });

  it('does not keep failures and evicts the least recently used entry', async () => {
    const cache = new VersionedCache<string>(2);
    await expect(cache.get('a', '1', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await cache.get('a', '1', async () => 'a')).toBe('a');
    await cache.get('b', '1', async () => 'b');
    await cache.get('a', '1', async () => 'not used'); // touches a
    await cache.get('c', '1', async () => 'c'); // evicts b
    expect(cache.size).toBe(2);
    expect(await cache.get('a', '1', async () => 'recomputed')).toBe('a');
    expect(await cache.get('b', '1', async () => 'b again')).toBe('b again');
  });

  it('keeps the total weight under its bound, oldest out first', async () => {
    const cache = new VersionedCache<string>(100, (v) => v.length, 10);
    await cache.get('a', '1', async () => 'aaaa');
    await cache.get('b', '1', async () => 'bbbb');
    expect(cache.peek('a', '1')).toBe('aaaa');
    await cache.get('c', '1', async () => 'cccc'); // 12 > 10: a goes
    expect(cache.peek('a', '1')).toBeUndefined();
    expect(cache.peek('b', '1')).toBe('bbbb');
    expect(cache.peek('c', '1')).toBe('cccc');
    expect(cache.peek('c', '2')).toBeUndefined();
  });
});
