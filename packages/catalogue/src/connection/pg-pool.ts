import pg from 'pg';
import type { HostAddress } from './pglite-host.ts';

const INT8_OID = 20;

// Counts and bigint columns arrive as numbers (all ours stay far below 2^53), the same on every backend.
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID && format !== 'binary') return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

/** A pg pool for a PostgreSQL server URL. */
export function serverPool(connectionString: string, max = 10): pg.Pool {
  return new pg.Pool({ connectionString, max, types });
}

/** A pg pool for an embedded database hosted by some process on this machine. */
export function hostedPool(
  address: HostAddress,
  options: { max: number; idleTimeoutMillis: number },
): pg.Pool {
  const where =
    'socketDir' in address ? { host: address.socketDir } : { host: address.host, port: address.port };
  return new pg.Pool({ ...where, user: 'postgres', database: 'postgres', types, ...options });
}
