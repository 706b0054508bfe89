import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '@earshot/common';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketHandler } from '@electric-sql/pglite-socket';
import { SessionQueue } from './session-queue.ts';

/**
 * Where a PGlite host listens: a unix socket folder (pg's `host`). Earlier versions could listen on
 * a loopback TCP port, which any local account could reach without a password; clients still
 * understand such an address in a lock file written by one of them.
 */
export type HostAddress = { socketDir: string } | { host: string; port: number };

export interface PgliteHost {
  readonly address: HostAddress;
  /** Open socket connections (this process's own pool included). */
  connectionCount(): number;
  /** Stops listening, waits up to `drainMs` for connected clients to leave, then closes the database. */
  close(options: { drainMs: number }): Promise<void>;
}

// pg looks for `<host>/.s.PGSQL.<port>` when `host` is a folder.
const SOCKET_NAME = '.s.PGSQL.5432';
// sun_path holds 108 bytes on Linux; a data folder too deep for it gets a short private folder.
const MAX_SOCKET_PATH = 100;

/**
 * Opens the PGlite database in `dbDir` and serves it over the PostgreSQL wire protocol, so this
 * process and every other process on the same data folder use one driver (`pg`) and one backend.
 */
export async function startPgliteHost(options: {
  dbDir: string;
  runDir: string;
  logger: Logger;
}): Promise<PgliteHost> {
  const { dbDir, logger } = options;
  privateFolder(dbDir);
  const db = await PGlite.create(dbDir);
  privateFiles(dbDir);
  const queue = new SessionQueue(db);
  const handlers = new Set<PGLiteSocketHandler>();

  const server = net.createServer((socket) => {
    const handler = new PGLiteSocketHandler({ queryQueue: queue as never, closeOnDetach: true });
    handlers.add(handler);
    const forget = () => handlers.delete(handler);
    handler.addEventListener('close', forget);
    handler.addEventListener('error', forget);
    handler.attach(socket).catch((err: unknown) => {
      forget();
      logger.warn({ err }, 'catalogue: could not attach a database connection');
      socket.destroy();
    });
  });

  // The socket is the database's only door and it has no password: it lives in a folder only this
  // account may enter — the data folder's own, or a fresh one in the temp folder when that path is
  // too long for a socket.
  let runDir = options.runDir;
  let ownRunDir = false;
  if (path.join(runDir, SOCKET_NAME).length > MAX_SOCKET_PATH) {
    runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-'));
    ownRunDir = true;
  }
  privateFolder(runDir);
  const socketPath = path.join(runDir, SOCKET_NAME);
  if (socketPath.length > MAX_SOCKET_PATH) {
    throw new Error(
      `No folder short enough for the database socket (${socketPath}); set TMPDIR to a short path.`,
    );
  }
  // A socket file left by a crashed owner blocks listen(); we hold the folder lock, so it is ours to remove.
  fs.rmSync(socketPath, { force: true });
  await listen(server, socketPath);
  const address: HostAddress = { socketDir: runDir };
  logger.debug({ dbDir, address }, 'catalogue: embedded database hosted');

  return {
    address,
    connectionCount: () => handlers.size,
    async close({ drainMs }) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      const started = Date.now();
      let announced = false;
      while (handlers.size > 0 && Date.now() < started + drainMs) {
        // Our own pool's sockets take a moment to go; only others still here after that are news.
        if (!announced && Date.now() - started > 1000) {
          logger.info(
            { others: handlers.size },
            'catalogue: waiting for other earshot processes on this data folder to finish',
          );
          announced = true;
        }
        await sleep(50);
      }
      if (handlers.size > 0) {
        logger.warn(
          { others: handlers.size },
          'catalogue: closing while other processes are still connected',
        );
      }
      for (const handler of handlers) await handler.detach(true);
      await closed;
      await db.close();
      fs.rmSync(ownRunDir ? runDir : socketPath, { recursive: true, force: true });
    },
  };
}

/** Creates `dir` if needed and lets only this account in (0700). */
function privateFolder(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
}

/**
 * PGlite writes its files with the process's umask (often world-readable, some configuration files
 * world-writable): everything under the database folder becomes this account's alone. The folder
 * itself is 0700 as well, so files it adds later are out of other accounts' reach whatever their mode.
 */
function privateFiles(dir: string): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const full = path.join(entry.parentPath, entry.name);
    if (entry.isDirectory()) fs.chmodSync(full, 0o700);
    else if (entry.isFile()) fs.chmodSync(full, 0o600);
  }
}

function listen(server: net.Server, where: string | net.ListenOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    const done = () => {
      server.off('error', reject);
      resolve();
    };
    if (typeof where === 'string') server.listen(where, done);
    else server.listen(where, done);
  });
}
