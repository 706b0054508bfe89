import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Config, EarshotError, type Logger } from '@earshot/common';
import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import { migrateDatabase } from '../migrate.ts';
import type { Database } from '../schema/database.ts';
import {
  type CatalogueRole,
  DataFolderLock,
  type LockRecord,
  readLock,
  removeStaleLock,
} from './data-folder-lock.ts';
import { hostedPool, serverPool } from './pg-pool.ts';
import { type PgliteHost, startPgliteHost } from './pglite-host.ts';

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
  /** How long to wait for the data folder to become usable (default 120 s). */
  waitMs?: number;
  /** How long a hosting process waits on close for other processes to disconnect (default 60 s). */
  drainMs?: number;
}

export class CatalogueBusyError extends EarshotError {
  constructor(message: string) {
    super(message, 'catalogue_busy', 503);
  }
}

/** Opens the catalogue database, applying migrations unless told not to. */
export async function openCatalogue(options: OpenCatalogueOptions): Promise<Catalogue> {
  const catalogue = options.config.DATABASE_URL
    ? openServer(options.config.DATABASE_URL, options.logger)
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

function openServer(url: string, logger: Logger): Catalogue {
  const pool = serverPool(url, logger);
  return wrap(pool, 'postgres', async () => {});
}

function wrap(pool: pg.Pool, kind: CatalogueKind, after: () => Promise<void>): Catalogue {
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  let closing: Promise<void> | undefined;
  return {
    db,
    kind,
    close() {
      closing ??= db.destroy().then(after);
      return closing;
    },
  };
}

/**
 * One data folder, many processes: the first to take `<DATA_DIR>/catalogue.lock` hosts the PGlite
 * database on a socket in the folder; the others connect to it. A server finding a short command
 * in charge waits for it to finish rather than depend on it.
 */
async function openEmbedded(options: OpenCatalogueOptions): Promise<Catalogue> {
  const { logger } = options;
  const dataDir = options.config.dataDir;
  const role = options.role ?? 'command';
  const deadline = Date.now() + (options.waitMs ?? 120_000);
  const wanted = { role, command: options.description ?? describeProcess() };
  let waitingFor: LockRecord | undefined;
  let failedConnects = 0;

  for (;;) {
    const got = await DataFolderLock.acquire(dataDir, wanted);
    if (got instanceof DataFolderLock) return host(got, options);
    const owner = got;
    const mustWait = role !== 'command' && owner.role === 'command';
    if (mustWait || !owner.address) {
      if (Date.now() > deadline) {
        throw new CatalogueBusyError(
          `the data folder ${dataDir} is still in use by ${owner.command} (pid ${owner.pid}); stop it or try again later`,
        );
      }
      if (mustWait && waitingFor?.pid !== owner.pid) {
        logger.warn(
          { dataDir, owner: owner.command, pid: owner.pid },
          `catalogue: the data folder is in use by ${owner.command} (pid ${owner.pid}); waiting for it to finish`,
        );
        waitingFor = owner;
      }
      await sleep(100);
      continue;
    }
    const pool = hostedPool(owner.address, { max: 4, idleTimeoutMillis: 1000 }, logger);
    try {
      await pool.query('select 1');
      logger.debug({ dataDir, owner: owner.pid }, 'catalogue: using the database hosted by another process');
      return wrap(pool, 'pglite-client', async () => {});
    } catch (err) {
      await pool.end().catch(() => {});
      // A published address nobody answers on, again and again: the owner's pid now belongs to someone else.
      failedConnects += 1;
      const current = readLock(dataDir);
      const same = current?.pid === owner.pid && current.since === owner.since;
      if (same && failedConnects >= 20) {
        logger.warn(
          { err, pid: owner.pid },
          'catalogue: the lock owner does not answer; taking the folder over',
        );
        await removeStaleLock(dataDir, owner);
        failedConnects = 0;
      }
      if (Date.now() > deadline) throw new CatalogueBusyError(`cannot reach the database host of ${dataDir}`);
      await sleep(100);
    }
  }
}

async function host(lock: DataFolderLock, options: OpenCatalogueOptions): Promise<Catalogue> {
  const dataDir = options.config.dataDir;
  let pgliteHost: PgliteHost;
  try {
    pgliteHost = await startPgliteHost({
      dbDir: path.join(dataDir, 'db'),
      runDir: path.join(dataDir, 'run'),
      logger: options.logger,
    });
  } catch (err) {
    lock.release();
    throw err;
  }
  lock.publish(pgliteHost.address);
  const pool = hostedPool(pgliteHost.address, { max: 10, idleTimeoutMillis: 10_000 }, options.logger);
  return wrap(pool, 'pglite', async () => {
    try {
      await pgliteHost.close({ drainMs: options.drainMs ?? 60_000 });
    } finally {
      lock.release();
    }
  });
}

function describeProcess(): string {
  const args = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const name = path.basename(process.argv[1] ?? 'node');
  return `"${[name, ...args.slice(0, 2)].join(' ')}"`;
}
