import type { SoundRecord } from '@earshot/catalogue';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CatalogueReader } from '../application/ports.ts';
import { cachedSoundRecords } from './record-cache.ts';

/**
 * The record cache's reads: shared while under way, refreshed ahead of expiry while still served,
 * never older than the ttl. The catalogue behind it is a counting stand-in whose rows carry the
 * number of the read that returned them, so a test can tell which read a record came from.
 */
function countingReader() {
  const state = {
    reads: 0,
    asked: [] as number[][],
    columns: [] as Array<string[] | undefined>,
    release: [] as Array<() => void>,
  };
  const reader = {
    async soundsByIds(ids: readonly number[], columns?: ReadonlySet<string>) {
      const n = ++state.reads;
      state.asked.push([...ids]);
      state.columns.push(columns && [...columns]);
      await new Promise<void>((resolve) => state.release.push(resolve));
      return ids.map((id) => ({ id, name: `read ${n}` }) as unknown as SoundRecord);
    },
  } as unknown as CatalogueReader;
  const releaseAll = async () => {
    for (const r of state.release.splice(0)) r();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { state, reader, releaseAll };
}

const names = (records: SoundRecord[]) => records.map((r) => (r as unknown as { name: string }).name);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(0);
});
afterEach(() => vi.useRealTimers());

describe('cachedSoundRecords', () => {
  it('sends concurrent requests for a missing record to one read', async () => {
    const { state, reader, releaseAll } = countingReader();
    const cache = cachedSoundRecords(reader, 5_000);
    const answers = Promise.all([1, 2, 3].map(() => cache.soundsByIds([7, 8])));
    await releaseAll();
    expect(state.reads).toBe(1);
    for (const answer of await answers) expect(names(answer)).toEqual(['read 1', 'read 1']);
  });

  it('serves an entry past half its life while one background read refreshes it', async () => {
    const { state, reader, releaseAll } = countingReader();
    const cache = cachedSoundRecords(reader, 5_000);
    const first = cache.soundsByIds([7]);
    await releaseAll();
    expect(names(await first)).toEqual(['read 1']);
    vi.setSystemTime(1_000);
    expect(names(await cache.soundsByIds([7]))).toEqual(['read 1']);
    expect(state.reads).toBe(1); // young: no refresh
    vi.setSystemTime(3_000);
    // Answered from memory without waiting for the refresh it starts (only one, however many ask).
    expect(names(await cache.soundsByIds([7]))).toEqual(['read 1']);
    expect(names(await cache.soundsByIds([7]))).toEqual(['read 1']);
    expect(state.reads).toBe(2);
    await releaseAll();
    // The refreshed entry dates from its read (3 s): at 5 s, when the first would have expired, it
    // is young, so no read at all.
    vi.setSystemTime(5_000);
    expect(names(await cache.soundsByIds([7]))).toEqual(['read 2']);
    expect(state.reads).toBe(2);
  });

  it('never serves an entry older than the ttl', async () => {
    const { state, reader, releaseAll } = countingReader();
    const cache = cachedSoundRecords(reader, 5_000);
    const first = cache.soundsByIds([7]);
    await releaseAll();
    await first;
    vi.setSystemTime(5_000);
    const second = cache.soundsByIds([7]);
    await releaseAll();
    expect(names(await second)).toEqual(['read 2']);
    expect(state.reads).toBe(2);
  });

  it('reads the missing rows of a few columns as asked, without keeping them, and serves kept whole rows', async () => {
    const { state, reader, releaseAll } = countingReader();
    const cache = cachedSoundRecords(reader, 5_000);
    const whole = cache.soundsByIds([7]);
    await releaseAll();
    await whole;
    const few = cache.soundsByIds([7, 8], new Set(['name'] as const));
    await releaseAll();
    expect(names(await few)).toEqual(['read 1', 'read 2']);
    expect(state.asked).toEqual([[7], [8]]);
    expect(state.columns).toEqual([undefined, ['name']]);
    // Not kept: asked again (whole or not), 8 is read again.
    const again = cache.soundsByIds([8]);
    await releaseAll();
    expect(names(await again)).toEqual(['read 3']);
    expect(state.columns[2]).toBeUndefined();
  });

  it('does not keep, nor share, a read that was under way when the catalogue changed', async () => {
    const { state, reader, releaseAll } = countingReader();
    let changed: () => void = () => undefined;
    const changes = {
      onChange: (f: () => void) => {
        changed = f;
      },
    };
    const cache = cachedSoundRecords(reader, 5_000, 50_000, changes as never);
    const before = cache.soundsByIds([7]);
    changed();
    const after = cache.soundsByIds([7]); // a new read, not the old one
    await releaseAll();
    expect(names(await before)).toEqual(['read 1']);
    expect(names(await after)).toEqual(['read 2']);
    const third = cache.soundsByIds([7]);
    await releaseAll();
    expect(names(await third)).toEqual(['read 2']);
    expect(state.reads).toBe(2);
  });
});
