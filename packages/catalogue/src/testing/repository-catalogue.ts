import { afterAll, beforeAll } from 'vitest';
import { openTestCatalogue, type TestBackend, type TestCatalogue } from './catalogue.ts';

/**
 * The shared set-up of the repository suites: a migrated catalogue of the suite's own for the
 * duration of the enclosing `describe`, and unique names so tests never collide on unique columns.
 */
export function useRepositoryCatalogue(backend: TestBackend, postgresUrl: string | undefined) {
  let t: TestCatalogue;
  let n = 0;
  beforeAll(async () => {
    t = await openTestCatalogue(backend, { postgresUrl });
  });
  afterAll(() => t?.cleanup());
  return {
    db: () => t.catalogue.db,
    unique: (prefix: string) => `${prefix}${++n}`,
  };
}
