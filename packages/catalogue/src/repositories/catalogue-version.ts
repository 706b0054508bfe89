import type { Db } from './shared.ts';

/**
 * The embedded database's change counter: it moves forward with every committed transaction that
 * changed what searches or sounds show, from any process (migration `*-catalogue-change-counter`).
 * Two equal readings mean no such change was committed between them, so a cache can be trusted
 * for a reading it was filled under. One primary-key read. On the PostgreSQL server it stays put:
 * readers there listen for the catalogue's notifications instead.
 */
export async function readCatalogueVersion(db: Db): Promise<number> {
  const row = await db
    .selectFrom('catalogue_version')
    .select('version')
    .where('id', '=', 1)
    .executeTakeFirstOrThrow();
  return Number(row.version);
}
