import type { Config, Logger } from '@earshot/common';
import { Kysely, PostgresDialect, type PostgresPool } from 'kysely';
import { migrateDatabase } from '../migrate.ts';
import type { Database } from '../schema/database.ts';
import type { CatalogueRole } from './data-folder-lock.ts';
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

export interface OpenCatalogueOptions {
  config: Pick<Config, 'DATABASE_URL' | 'dataDir'>;
  logger: Logger;
  /** `server` (and `worker`) wait for a short `command` that hosts the folder to finish instead of depending on it. */
  role?: CatalogueRole;
  /** What to call this process in other processes' "waiting for" messages. */
  description?: string;
  /** Apply pending migrations on open (default true). */
  migrate?: boolean;
  /** Connections to a PostgreSQL server at most (default 10); the embedded database ignores it. */
  poolSize?: number;
  /** How long to wait for the data folder to become usable (default 120 s). */
  waitMs?: number;
  /** How long a hosting process waits on close for other processes to disconnect (default 60 s). */
  drainMs?: number;
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
