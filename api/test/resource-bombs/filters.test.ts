import { createTestDatabase } from '@earshot/catalogue/testing';
import { testService } from '@earshot/common/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * Resource bombs, huge and expensive filters: a search's size is bounded before it reaches the
 * database, and its database work is bounded in time, stopped when its client goes away, and
 * cannot starve other requests of connections. A lock held on the descriptor table makes any
 * content search that reads it as slow as the test needs, whatever the data.
 */

const postgresUrl = await testService('postgres');

type Json = Record<string, any>;

/** `n` AND'ed ranges on a descriptor path; `salt` makes each filter its own (no cache shares it). */
function ranges(n: number, salt = 0): string {
  return Array.from({ length: n }, (_, i) => `lowlevel.pitch.mean:[${-i - salt} TO 100000]`).join(' AND ');
}

describe('the size of a filter is bounded', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s?.stop());

  const get = async (path: string, params: Record<string, string>) => {
    const url = new URL(`${s.origin}${path}`);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    url.searchParams.set('token', s.seeded.apiKey);
    const res = await fetch(url);
    return { status: res.status, body: (await res.json()) as Json };
  };

  const manyConditions = Array.from({ length: 129 }, (_, i) => `duration:[${i} TO *]`).join(' AND ');
  const long = `tag:${'a'.repeat(4001)}`;
  it.each([
    ['/apiv2/search/text/', 'filter', manyConditions, /more than 128 conditions/],
    ['/apiv2/search/text/', 'filter', long, /longer than 4000 characters/],
    [
      '/apiv2/search/content/',
      'descriptors_filter',
      ranges(129),
      /more than 128 conditions|longer than 4000/,
    ],
    [
      '/apiv2/search/content/',
      'descriptors_filter',
      `lowlevel.pitch.mean:${'9'.repeat(4001)}`,
      /longer than 4000/,
    ],
    ['/api/sounds/search/', 'f', manyConditions, /more than 128 conditions/],
    ['/api/sounds/search/', 'f', long, /longer than 4000 characters/],
  ])('%s %s over the bound is a 400 naming the limit', async (path, param, value, limit) => {
    const { status, body } = await get(path, { [param]: value });
    expect(status).toBe(400);
    const detail = JSON.stringify(body);
    expect(detail).toMatch(limit);
  });
});

describe.skipIf(!postgresUrl)('the database work of a search is bounded (PostgreSQL server)', () => {
  let s: TestServer;
  let database: { url: string; drop(): Promise<void> };
  /** Connections of the test's own: one looks at pg_stat_activity (outside a transaction, where
   * its view would be a snapshot), one holds the lock. */
  let probe: pg.Client;
  let locker: pg.Client;
  const BUDGET_MS = 1500;

  beforeAll(async () => {
    database = await createTestDatabase(postgresUrl as string);
    s = await startTestServer({ DATABASE_URL: database.url, SEARCH_BUDGET_MS: String(BUDGET_MS) });
    probe = new pg.Client({ connectionString: database.url });
    await probe.connect();
    locker = new pg.Client({ connectionString: database.url });
    await locker.connect();
  });
  afterAll(async () => {
    await probe?.end();
    await locker?.end();
    await s?.stop();
    await database?.drop();
  });

  const url = (path: string, params: Record<string, string>) => {
    const u = new URL(`${s.origin}${path}`);
    for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
    u.searchParams.set('token', s.seeded.apiKey);
    return u;
  };
  const content = (filter: string) => url('/apiv2/search/content/', { descriptors_filter: filter });

  /** Statements of the server's pool under way (running or waiting for a lock), the probe's own aside. */
  async function running(): Promise<number> {
    const r = await probe.query(
      `select count(*)::int as n from pg_stat_activity
        where datname = current_database() and state = 'active' and pid <> pg_backend_pid()
          and wait_event_type is distinct from 'Client'`,
    );
    return r.rows[0].n;
  }

  /** Runs `test` while no statement can read sound_descriptors. */
  async function withDescriptorsLocked(test: () => Promise<void>): Promise<void> {
    await locker.query('begin');
    await locker.query('lock table sound_descriptors in access exclusive mode');
    try {
      await test();
    } finally {
      await locker.query('rollback');
    }
  }

  it('100 AND-ed descriptor ranges are within the bound and answered', async () => {
    const res = await fetch(content(ranges(100)));
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json).count).toBeGreaterThan(0);
  });

  it('a search past its budget is a 409 saying how to narrow it, and its statement is cancelled', async () => {
    await withDescriptorsLocked(async () => {
      const res = await fetch(content(ranges(3, 1)));
      expect(res.status).toBe(409);
      const body = (await res.json()) as Json;
      expect(body.detail).toMatch(/too expensive.*1\.5 s of database time.*Narrow it/);
      // Stopped on the server while the lock it waits for is still held: nothing left running.
      await expect.poll(running, { timeout: 5_000 }).toBe(0);
    });
    // Its connection is back in the pool and usable.
    expect((await fetch(content(ranges(3, 1)))).status).toBe(200);
  });

  it('a client that hangs up mid-search leaves no statement running', async () => {
    await withDescriptorsLocked(async () => {
      const abort = new AbortController();
      const pending = fetch(content(ranges(3, 2)), { signal: abort.signal }).catch(() => 'aborted');
      await expect.poll(running, { timeout: 5_000 }).toBe(1);
      abort.abort();
      expect(await pending).toBe('aborted');
      // Well before the budget would have stopped it.
      await expect.poll(running, { timeout: BUDGET_MS / 2, interval: 50 }).toBe(0);
    });
  });

  it('12 concurrent heavy searches do not starve a light request of a connection', async () => {
    await withDescriptorsLocked(async () => {
      const heavy = Array.from({ length: 12 }, (_, i) =>
        fetch(content(ranges(50, 10 + i))).then((r) => r.status),
      );
      // The pool (10 connections) is full of statements waiting on the lock.
      await expect.poll(running, { timeout: 10_000 }).toBe(10);
      const light = await fetch(url('/apiv2/search/text/', { query: 'drum' }));
      expect(light.status).toBe(200);
      const statuses = await Promise.all(heavy);
      expect(statuses.every((status) => status === 409)).toBe(true);
    });
  });
});
