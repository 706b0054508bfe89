import type { Logger } from '@earshot/common';
import { Kysely, PostgresDialect, type PostgresPool } from 'kysely';
import { migrateDatabase } from '../migrate.ts';
import type { Database } from '../schema/database.ts';
import type { OpenCatalogueOptions } from './catalogue-options.ts';
import { acquireEmbedded } from './embedded-connection.ts';

export { CatalogueBusyError } from './embedded-connection.ts';

import { FollowingPool } from './following-pool.ts';
import { serverPool } from './pg-pool.ts';

export type CatalogueKind = 'postgres' | 'pglite' | 'pglite-client';

export interface Catalogue {
  readonly db: Kysely<Database>;
  /** postgres: a server via DATABASE_URL; pglite: this process hosts the embedded database; pglite-client: another process does. */
  readonly kind: CatalogueKind;
  close(): Promise<void>;
}

/** Opens the catalogue database, applying migrations unless told not to. */
export async function openCatalogue(options: OpenCatalogueOptions): Promise<Catalogue> {
  const catalogue = options.config.DATABASE_URL
    ? openServer(options.config.DATABASE_URL, options.logger, options.poolSize)
    : await openEmbedded(options);
  if (options.migrate !== false) {
    try {
      const { applied } = await migrateDatabase(catalogue.db);
      if (applied.length) options.logger.info({ applied }, 'catalogue: migrations applied');
    } catch (err) {
      await catalogue.close();
      throw err;
    }
  }
  return catalogue;
}

function openServer(url: string, logger: Logger, poolSize?: number): Catalogue {
  const pool = serverPool(url, logger, poolSize);
  return wrap(
    pool,
    () => 'postgres',
    async () => {},
  );
}

function wrap(pool: PostgresPool, kind: () => CatalogueKind, after: () => Promise<void>): Catalogue {
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  let closing: Promise<void> | undefined;
  return {
    db,
    get kind() {
      return kind();
    },
    close() {
      closing ??= db.destroy().then(after);
      return closing;
    },
  };
}

/**
 * One data folder, many processes (see embedded-connection.ts). The pool follows the folder: when
 * the process hosting the database goes away, the next connection finds or becomes the new host.
 */
async function openEmbedded(options: OpenCatalogueOptions): Promise<Catalogue> {
  const pool = new FollowingPool(
    await acquireEmbedded(options),
    () => acquireEmbedded(options),
    options.logger,
  );
  return wrap(
    pool,
    () => pool.kind,
    async () => {},
  );
}
