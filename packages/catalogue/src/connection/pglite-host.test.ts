import fs from 'node:fs';
import path from 'node:path';
import { createLogger } from '@earshot/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDataDir } from '../testing/index.ts';
import { hostedPool } from './pg-pool.ts';
import { type PgliteHost, startPgliteHost } from './pglite-host.ts';

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
});
