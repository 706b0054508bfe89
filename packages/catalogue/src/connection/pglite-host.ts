import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '@earshot/common';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketHandler } from '@electric-sql/pglite-socket';
import { SessionQueue } from './session-queue.ts';

/** Where a PGlite host listens: a unix socket folder (pg's `host`) or a loopback TCP port. */
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
// sun_path holds 108 bytes on Linux; longer data folders fall back to loopback TCP.
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
  const { dbDir, runDir, logger } = options;
  fs.mkdirSync(dbDir, { recursive: true });
  fs.mkdirSync(runDir, { recursive: true });
  const db = await PGlite.create(dbDir);
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

  const socketPath = path.join(runDir, SOCKET_NAME);
  let address: HostAddress;
  if (socketPath.length <= MAX_SOCKET_PATH) {
    // A socket file left by a crashed owner blocks listen(); we hold the folder lock, so it is ours to remove.
    fs.rmSync(socketPath, { force: true });
    await listen(server, socketPath);
    address = { socketDir: runDir };
  } else {
    await listen(server, { host: '127.0.0.1', port: 0 });
    const bound = server.address() as net.AddressInfo;
    address = { host: '127.0.0.1', port: bound.port };
  }
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
      if ('socketDir' in address) fs.rmSync(socketPath, { force: true });
    },
  };
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
