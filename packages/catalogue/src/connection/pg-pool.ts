import type { Logger } from '@earshot/common';
import pg from 'pg';
import { answeringClient, HOSTED_ANSWER_MS } from './answer-guard.ts';
import type { HostAddress } from './pglite-host.ts';
import { PREPARED_SESSION_SETUP, PreparingClient } from './prepared-statements.ts';

const INT8_OID = 20;

// Counts and bigint columns arrive as numbers (all ours stay far below 2^53), the same on every backend.
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID && format !== 'binary') return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

/**
 * A pg pool for a PostgreSQL server URL, running marked statements as prepared statements
 * (prepared-statements.ts). Not for an embedded database: its host serves every connection from
 * one session, where statement names would collide.
 */
export function serverPool(connectionString: string, logger?: Logger, max = 10): pg.Pool {
  // A server that does not answer (a dropped network, not a refused port) must not hold a request
  // forever: after this long without a connection the statement fails as "unavailable".
  const pool = watched(
    new pg.Pool({ connectionString, max, types, Client: PreparingClient, connectionTimeoutMillis: 10_000 }),
    logger,
  );
  pool.on('connect', (client) => {
    client
      .query(PREPARED_SESSION_SETUP)
      .catch((err) => logger?.warn({ err }, 'catalogue: could not set up a database connection'));
  });
  return pool;
}

/**
 * A pg pool for an embedded database hosted by some process on this machine. Every statement is
 * answered or fails within `answerMs` (answer-guard.ts), and a wait for a connection — for a free
 * one of the pool's, or for the host to accept — ends after `connectMs`: nothing the pool is asked
 * can hold its caller for ever.
 */
export function hostedPool(
  address: HostAddress,
  options: { max: number; idleTimeoutMillis: number; answerMs?: number; connectMs?: number },
  logger?: Logger,
): pg.Pool {
  const where =
    'socketDir' in address ? { host: address.socketDir } : { host: address.host, port: address.port };
  const { answerMs = HOSTED_ANSWER_MS, connectMs = HOSTED_CONNECT_MS, ...sizes } = options;
  return watched(
    new pg.Pool({
      ...where,
      user: 'postgres',
      database: 'postgres',
      types,
      Client: answeringClient(answerMs, logger),
      connectionTimeoutMillis: connectMs,
      ...sizes,
    }),
    logger,
  );
}

/**
 * How long a caller waits for a connection to an embedded host. As long as a statement may go
 * unanswered: a connection is waited for while the connections ahead finish their statements.
 */
const HOSTED_CONNECT_MS = HOSTED_ANSWER_MS;

// A pooled connection that breaks (server restart, embedded host gone) emits 'error': on the pool
// while it is idle, on the client itself while it is checked out (in a transaction, or between two
// statements). Without a listener Node treats either as an uncaught error and ends the process, so
// one process's death would take its neighbours with it. The statement under way fails on its own;
// the pool discards the broken client when it is released.
function watched(pool: pg.Pool, logger?: Logger): pg.Pool {
  pool.on('error', (err) =>
    logger?.warn({ err: brief(err) }, 'catalogue: an idle database connection failed'),
  );
  pool.on('connect', (client) => {
    client.on('error', (err) =>
      logger?.warn({ err: brief(err) }, 'catalogue: a database connection in use failed'),
    );
  });
  return pool;
}

/** What is worth logging of a broken connection's error (pg attaches the whole client to some). */
function brief(err: Error): { message: string; code?: string } {
  return { message: err.message, code: (err as { code?: string }).code };
}
