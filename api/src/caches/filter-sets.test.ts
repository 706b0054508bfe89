import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Catalogue, matchingSoundIds, openCatalogue } from '@earshot/catalogue';
import { loadSyntheticCatalogue } from '@earshot/catalogue/testing';
import { createLogger, loadConfig } from '@earshot/common';
import { type FilterSets, filterSetsFromCatalogue } from '@earshot/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedFilterSets } from './filter-sets.ts';

/** Filter id sets shared between requests, on a real embedded catalogue. */

let dir: string;
let catalogue: Catalogue;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'earshot-api-filter-sets-'));
  const config = loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' });
  catalogue = await openCatalogue({ config, logger: createLogger('silent'), role: 'server' });
  await loadSyntheticCatalogue(catalogue.db, { sounds: 400 });
}, 120_000);
afterAll(async () => {
  await catalogue?.close();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

describe('sharedFilterSets', () => {
  /** The real reader, counting how often it reaches the database. */
  function counting(): { reads: () => number; load: FilterSets } {
    const real = filterSetsFromCatalogue(catalogue.db, 1_000_000);
    let reads = 0;
    return {
      reads: () => reads,
      load: (req) => {
        reads++;
        return real(req);
      },
    };
  }

  it('shares one read between concurrent and repeated identical filters, not between different ones', async () => {
    const c = counting();
    const shared = sharedFilterSets(c.load, 60_000);
    const same = await Promise.all(Array.from({ length: 5 }, () => shared({ filter: 'duration:[0 TO 2]' })));
    expect(c.reads()).toBe(1);
    for (const ids of same) expect(ids).toBe(same[0]);
    await shared({ filter: 'duration:[0 TO 2]' });
    expect(c.reads()).toBe(1);
    const other = await shared({ filter: 'duration:[0 TO 2]', descriptorsFilter: undefined, query: 'a' });
    expect(c.reads()).toBe(2);
    expect([...(other ?? [])]).toEqual(
      await matchingSoundIds(catalogue, { query: 'a', filter: 'duration:[0 TO 2]' }),
    );
    expect(await shared({})).toBeUndefined();
    expect(c.reads()).toBe(2);
  });

  it('reads again once the answer is older than the ttl', async () => {
    const c = counting();
    const shared = sharedFilterSets(c.load, 0);
    await shared({ filter: 'duration:[0 TO 2]' });
    await shared({ filter: 'duration:[0 TO 2]' });
    expect(c.reads()).toBe(2);
  });

  it('keeps serving the old answer while one fresh read runs, but never one older than twice the ttl', async () => {
    const c = counting();
    const ttl = 1000;
    const shared = sharedFilterSets(c.load, ttl);
    const req = { filter: 'duration:[0 TO 2]' };
    const first = await shared(req);
    await new Promise((resolve) => setTimeout(resolve, ttl + 50));
    const stale = await Promise.all([shared(req), shared(req), shared(req)]);
    for (const ids of stale) expect(ids).toBe(first); // answered at once from the old read
    expect(c.reads()).toBe(2); // one refresh for all three
    // The refresh lands well within the ttl (polled, so a slow machine only waits longer).
    let fresh = await shared(req);
    for (let i = 0; i < 40 && fresh === first; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      fresh = await shared(req);
    }
    expect(fresh).not.toBe(first);
    expect([...(fresh ?? [])]).toEqual([...(first ?? [])]);
    expect(c.reads()).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 2 * ttl + 50));
    const late = await shared(req);
    expect(late).not.toBe(fresh); // too old to serve: this request waited for a new read
    expect(c.reads()).toBe(3);
  });

  it('does not remember a failed read', async () => {
    const c = counting();
    const shared = sharedFilterSets(c.load, 60_000);
    await expect(shared({ filter: 'duration:[1 TO' })).rejects.toMatchObject({ status: 400 });
    await expect(shared({ filter: 'duration:[1 TO' })).rejects.toMatchObject({ status: 400 });
    expect(c.reads()).toBe(2);
  });
});
