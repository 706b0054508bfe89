import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Catalogue, matchingSoundIds, openCatalogue } from '@earshot/catalogue';
import { loadSyntheticCatalogue } from '@earshot/catalogue/testing';
import { createLogger, loadConfig } from '@earshot/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FilterRequest,
  type FilterSets,
  filterSetsFromCatalogue,
  sharedFilterSets,
} from './filter-sets.ts';

/** The id sets behind filtered similarity, content and combined search, on a real embedded catalogue. */

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

const FILTERS: FilterRequest[] = [
  { filter: 'duration:[0 TO 2]' },
  { filter: 'license:"Creative Commons 0"' },
  { query: 'a', filter: 'duration:[1 TO *]' },
  { filter: 'id:[1 TO 50] OR id:[300 TO 310]' },
  { filter: 'duration:[100000 TO *]' }, // matches nothing
];

describe('filterSetsFromCatalogue', () => {
  it('matches exactly the ids of the catalogue’s own id query', async () => {
    const read = filterSetsFromCatalogue(catalogue.db, 1_000_000);
    let nonEmpty = 0;
    for (const req of FILTERS) {
      const expected = await matchingSoundIds(catalogue, req);
      const ids = await read(req);
      expect(ids, JSON.stringify(req)).toBeInstanceOf(Set);
      expect(
        [...(ids ?? [])].sort((a, b) => a - b),
        JSON.stringify(req),
      ).toEqual(expected);
      if (expected.length > 0) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThanOrEqual(3); // the comparison is not between empty sets
  });

  it('answers undefined when nothing narrows the search, and honours the limit', async () => {
    const read = filterSetsFromCatalogue(catalogue.db, 5);
    expect(await read({})).toBeUndefined();
    expect([...((await read({ filter: 'duration:[0 TO *]' })) ?? [])]).toEqual(
      (await matchingSoundIds(catalogue, { filter: 'duration:[0 TO *]' })).slice(0, 5),
    );
  });

  it('rejects bad filter syntax as a 400', async () => {
    const read = filterSetsFromCatalogue(catalogue.db, 10);
    await expect(read({ filter: 'duration:[1 TO' })).rejects.toMatchObject({ status: 400 });
  });
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
