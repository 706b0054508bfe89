import { describe, expect, it, vi } from 'vitest';
import type { ApiKeyCredential } from '../framework/auth/token-strategy.ts';
import { cachedCredentialLookup } from './credential-cache.ts';

const GOOD = 'G'.repeat(40);
const credential: ApiKeyCredential = { clientId: 'c', userId: 1, username: 'ann', active: true };

/** The credentials table's side of the port: one known key, counting the lookups that reach it. */
function table() {
  const calls: string[] = [];
  return {
    calls,
    find: async (key: string) => {
      calls.push(key);
      return key === GOOD ? credential : undefined;
    },
  };
}

describe('the API-key cache under a flood of junk keys (issue 19)', () => {
  it('stays within its bounds, in entries and in characters, and keeps the known key', async () => {
    const db = table();
    const lookup = cachedCredentialLookup(db.find, undefined, { maxEntries: 100, maxMisses: 50 });
    expect(await lookup(GOOD)).toBe(credential);
    for (let i = 0; i < 20_000; i++) {
      // Long junk (4 KB, as a query string allows) and key-sized junk, every one new.
      expect(await lookup(i % 2 ? `junk${i}`.padEnd(4096, 'x') : `j${i}`.padEnd(40, 'x'))).toBeUndefined();
    }
    const held = lookup.held();
    expect(held.entries).toBe(1);
    expect(held.misses).toBeLessThanOrEqual(50);
    expect(held.chars).toBeLessThanOrEqual(40 + 50 * 64);
    // The known key was never pushed out: it is answered without reaching the table.
    const before = db.calls.length;
    expect(await lookup(GOOD)).toBe(credential);
    expect(db.calls.length).toBe(before);
  });

  it('remembers a recent miss of key size, but never a key too long to be one', async () => {
    const db = table();
    const lookup = cachedCredentialLookup(db.find);
    const miss = 'M'.repeat(40);
    await lookup(miss);
    await lookup(miss);
    expect(db.calls.filter((k) => k === miss)).toHaveLength(1);
    const long = 'L'.repeat(65);
    await lookup(long);
    await lookup(long);
    expect(db.calls.filter((k) => k === long)).toHaveLength(2);
    expect(lookup.held()).toMatchObject({ entries: 0, misses: 1 });
  });
});

describe('the API-key cache under a busy client (issue 21)', () => {
  it('sends concurrent lookups of one key to one read', async () => {
    const db = table();
    const lookup = cachedCredentialLookup(db.find);
    const answers = await Promise.all(Array.from({ length: 10 }, () => lookup(GOOD)));
    expect(answers).toEqual(Array(10).fill(credential));
    expect(db.calls).toHaveLength(1);
  });

  it('re-reads a key past half its life in the background, never serving one older than the ttl', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(0);
      const db = table();
      const lookup = cachedCredentialLookup(db.find, undefined, { ttlMs: 30_000 });
      await lookup(GOOD);
      vi.setSystemTime(10_000);
      await lookup(GOOD);
      expect(db.calls).toHaveLength(1); // young: no read
      vi.setSystemTime(20_000);
      expect(await lookup(GOOD)).toBe(credential); // answered from memory, one refresh started
      await lookup(GOOD);
      expect(db.calls).toHaveLength(2);
      await new Promise((resolve) => setImmediate(resolve));
      // The refreshed entry dates from 20 s: at 30 s, when the first would have expired, no read.
      vi.setSystemTime(30_000);
      await lookup(GOOD);
      expect(db.calls).toHaveLength(2);
      // 30 s after the refresh's read it has expired, and is read before answering.
      vi.setSystemTime(50_000);
      await lookup(GOOD);
      expect(db.calls).toHaveLength(3);
    } finally {
      vi.useRealTimers();
    }
  });
});
