import fs from 'node:fs';
import path from 'node:path';
import { createLogger } from '@earshot/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDataDir } from '../testing/index.ts';
import { hostedPool } from './pg-pool.ts';
import { type PgliteHost, startPgliteHost } from './pglite-host.ts';
import { isCatalogueUnavailable } from './unavailable.ts';

describe('PGlite host with its session queue', () => {
  let dataDir: string;
  let host: PgliteHost;
  beforeAll(async () => {
    dataDir = await freshDataDir();
    host = await startPgliteHost({
      dbDir: path.join(dataDir, 'db'),
      runDir: path.join(dataDir, 'run'),
      logger: createLogger('warn'),
    });
  });
  afterAll(async () => {
    await host?.close({ drainMs: 1000 });
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  // The stock pglite-socket queue fails this with "unnamed prepared statement does not exist".
  it('keeps many connections’ extended-protocol exchanges and transactions apart', async () => {
    const setup = hostedPool(host.address, { max: 1, idleTimeoutMillis: 0 });
    await setup.query('create table interleave (id serial primary key, pool int, n int)');
    await setup.end();
    const pools = [0, 1, 2, 3].map(() => hostedPool(host.address, { max: 3, idleTimeoutMillis: 0 }));
    const mismatches: string[] = [];
    await Promise.all(
      pools.flatMap((pool, p) =>
        [0, 1, 2].map(async (w) => {
          for (let i = 0; i < 40; i++) {
            if (i % 2) {
              const r = await pool.query('select $1::int as x, $2::text as y', [p * 1000 + i, `w${w}`]);
              if (r.rows[0].x !== p * 1000 + i || r.rows[0].y !== `w${w}`) mismatches.push(`${p}/${w}/${i}`);
              continue;
            }
            const client = await pool.connect();
            try {
              await client.query('begin');
              await client.query('insert into interleave (pool, n) values ($1, $2)', [p, i]);
              const seen = await client.query(
                'select count(*)::int as c from interleave where pool = $1 and n = $2',
                [p, i],
              );
              if (seen.rows[0].c < 1) mismatches.push(`tx ${p}/${w}/${i}`);
              await client.query(i % 4 === 0 ? 'commit' : 'rollback');
            } finally {
              client.release();
            }
          }
        }),
      ),
    );
    const { rows } = await pools[0].query('select count(*)::int as c from interleave');
    await Promise.all(pools.map((pool) => pool.end()));
    expect(mismatches).toEqual([]);
    // Per pool and worker, i = 0, 4, …, 36 committed: 10 rows each, 12 workers.
    expect(rows[0].c).toBe(120);
  });

  // The backend is one connection's until its exchange ends: a statement from another connection
  // waits meanwhile. When the exchange never ends (its owner waits, inside a transaction, for the
  // very statement that waits for it), the statement fails after its time instead of for ever.
  it('fails a statement left unanswered, closing its connection, and the host serves on', async () => {
    const owner = hostedPool(host.address, { max: 1, idleTimeoutMillis: 0 });
    const other = hostedPool(host.address, { max: 1, idleTimeoutMillis: 0, answerMs: 500 });
    // Connected before the backend is taken: what waits below is a statement, not a connection.
    await other.query('select 0');
    const holding = await owner.connect();
    try {
      await holding.query('begin');
      const started = Date.now();
      const waited = await Promise.race([
        other.query('select 1').then(
          () => 'answered' as const,
          (err: Error) => err,
        ),
        new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), 20_000)),
      ]);
      expect(waited).toBeInstanceOf(Error);
      expect(isCatalogueUnavailable(waited)).toBe(true);
      expect(Date.now() - started).toBeGreaterThanOrEqual(450);
      // The owner's session is untouched by it.
      const { rows } = await holding.query('select 2 as n');
      expect(rows[0].n).toBe(2);
      await holding.query('commit');
    } finally {
      // Should it fail, the host is left without an open transaction, for the hooks that close it.
      await holding.query('rollback').catch(() => {});
      holding.release();
    }
    // The failed client left the pool; the next statement gets a new connection and its answer.
    const { rows } = await other.query('select 3 as n');
    expect(rows[0].n).toBe(3);
    await Promise.all([owner.end(), other.end()]);
  });

  // A process killed inside a transaction: its socket closes while it owns the backend. The host
  // rolls its work back and serves the others (it used to deadlock: the rollback waited for the
  // lock its own cleanup held, and every later statement waited behind it for ever).
  it('rolls back the transaction of a connection that dies holding the backend, and serves on', async () => {
    const setup = hostedPool(host.address, { max: 1, idleTimeoutMillis: 0 });
    await setup.query('create table dies_mid_transaction (n int)');
    const dying = hostedPool(host.address, { max: 1, idleTimeoutMillis: 0 });
    const holding = await dying.connect();
    await holding.query('begin');
    await holding.query('insert into dies_mid_transaction values (1)');
    // What a SIGKILL does to the client side: the socket goes, with no Terminate message.
    (holding as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    holding.release(new Error('killed'));
    const answer = await Promise.race([
      setup.query('select count(*)::int as c from dies_mid_transaction').then((r) => r.rows[0].c as number),
      new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), 10_000)),
    ]);
    expect(answer).toBe(0);
    await Promise.all([setup.end(), dying.end().catch(() => {})]);
  });
});
