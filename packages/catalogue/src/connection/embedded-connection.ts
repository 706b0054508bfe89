import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { EarshotError } from '@earshot/common';
import type pg from 'pg';
import type { OpenCatalogueOptions } from './catalogue-options.ts';
import { DataFolderLock, type LockRecord, readLock, removeStaleLock } from './data-folder-lock.ts';
import { hostedPool } from './pg-pool.ts';
import { type PgliteHost, startPgliteHost } from './pglite-host.ts';

export class CatalogueBusyError extends EarshotError {
  constructor(message: string) {
    super(message, 'catalogue_busy', 503);
  }
}

/** A way into the embedded database: a pool, whether this process hosts it, and how to let go. */
export interface EmbeddedConnection {
  pool: pg.Pool;
  kind: 'pglite' | 'pglite-client';
  /** After the pool has ended: stop hosting (waiting for other processes) and free the folder. */
  release(): Promise<void>;
}

/**
 * One data folder, many processes: the first to take `<DATA_DIR>/catalogue.lock` hosts the PGlite
 * database on a socket in the folder; the others connect to it. A server finding a short command
 * in charge waits for it to finish rather than depend on it.
 */
export async function acquireEmbedded(options: OpenCatalogueOptions): Promise<EmbeddedConnection> {
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
    const pool = hostedPool(
      owner.address,
      { max: 4, idleTimeoutMillis: 1000, answerMs: options.answerMs },
      logger,
    );
    try {
      await pool.query('select 1');
      logger.debug({ dataDir, owner: owner.pid }, 'catalogue: using the database hosted by another process');
      return { pool, kind: 'pglite-client', release: async () => {} };
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

async function host(lock: DataFolderLock, options: OpenCatalogueOptions): Promise<EmbeddedConnection> {
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
  const pool = hostedPool(
    pgliteHost.address,
    { max: 10, idleTimeoutMillis: 10_000, answerMs: options.answerMs },
    options.logger,
  );
  return {
    pool,
    kind: 'pglite',
    async release() {
      try {
        await pgliteHost.close({ drainMs: options.drainMs ?? 60_000 });
      } finally {
        lock.release();
      }
    },
  };
}

function describeProcess(): string {
  const args = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const name = path.basename(process.argv[1] ?? 'node');
  return `"${[name, ...args.slice(0, 2)].join(' ')}"`;
}
