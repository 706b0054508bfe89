import net from 'node:net';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { isCatalogueUnavailable } from './unavailable.ts';

/** A port nothing listens on: bound and closed again. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('isCatalogueUnavailable', () => {
  it('is true for what pg reports when no server answers', async () => {
    const pool = new pg.Pool({ host: '127.0.0.1', port: await closedPort(), user: 'postgres' });
    const err = await pool.query('select 1').catch((e: unknown) => e);
    await pool.end();
    expect(err).toBeInstanceOf(Error);
    expect(isCatalogueUnavailable(err)).toBe(true);
  });

  it('is true for a server shutting down or refusing connections, and for a connection lost mid-statement', () => {
    expect(
      isCatalogueUnavailable(Object.assign(new Error('terminating connection'), { code: '57P01' })),
    ).toBe(true);
    expect(
      isCatalogueUnavailable(
        Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
      ),
    ).toBe(true);
    expect(isCatalogueUnavailable(Object.assign(new Error('connection failure'), { code: '08006' }))).toBe(
      true,
    );
    expect(isCatalogueUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isCatalogueUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
  });

  it('is false for a statement that is wrong, and for anything else', () => {
    expect(isCatalogueUnavailable(Object.assign(new Error('syntax error'), { code: '42601' }))).toBe(false);
    expect(isCatalogueUnavailable(Object.assign(new Error('value out of range'), { code: '22003' }))).toBe(
      false,
    );
    expect(
      isCatalogueUnavailable(
        Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }),
      ),
    ).toBe(false);
    expect(isCatalogueUnavailable(new TypeError('x is undefined'))).toBe(false);
    expect(isCatalogueUnavailable(undefined)).toBe(false);
    expect(isCatalogueUnavailable('ECONNREFUSED')).toBe(false);
  });
});
