import { describe, expect, it } from 'vitest';
import type { ApiKeyCredential } from '../auth/token-strategy.ts';
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
