import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Catalogue, matchingSoundIds, openCatalogue } from '@earshot/catalogue';
import { loadSyntheticCatalogue } from '@earshot/catalogue/testing';
import { createLogger, loadConfig } from '@earshot/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FilterRequest, filterSetsFromCatalogue } from './filter-sets.ts';

/** The id sets behind filtered similarity, content and combined search, on a real embedded catalogue. */

let dir: string;
let catalogue: Catalogue;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'earshot-services-filter-sets-'));
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
