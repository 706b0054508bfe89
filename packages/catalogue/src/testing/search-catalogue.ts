import type { Kysely } from 'kysely';
import { afterAll, beforeAll } from 'vitest';
import type { Catalogue } from '../connection/open-catalogue.ts';
import { openTestCatalogue, type TestBackend, type TestCatalogue } from './catalogue.ts';

/**
 * The shared set-up of the search suites: a migrated catalogue of the suite's own, filled by
 * `load`, for the duration of the enclosing `describe`. `catalogue` is read inside tests (it
 * exists only once beforeAll has run).
 */
export function useSearchCatalogue(
  backend: TestBackend,
  postgresUrl: string | undefined,
  load: (db: Kysely<any>) => Promise<unknown>,
  timeoutMs?: number,
): { readonly catalogue: Catalogue } {
  let t: TestCatalogue;
  beforeAll(async () => {
    t = await openTestCatalogue(backend, { postgresUrl });
    await load(t.catalogue.db);
  }, timeoutMs);
  afterAll(async () => {
    await t?.cleanup();
  });
  return {
    get catalogue() {
      return t.catalogue;
    },
  };
}
