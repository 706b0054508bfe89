import { testService } from '@earshot/common/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepared } from '../search/statement.ts';
import { openTestCatalogue, type TestCatalogue } from '../testing/index.ts';
import { GENERIC_PLAN_MARK, MAX_PREPARED_PER_CONNECTION } from './prepared-statements.ts';

const postgresUrl = await testService('postgres');

describe.skipIf(!postgresUrl)('prepared statements on the PostgreSQL server', () => {
  let t: TestCatalogue;
  beforeAll(async () => {
    t = await openTestCatalogue('postgres', { postgresUrl });
  });
  afterAll(() => t?.cleanup());

  it('a marked statement is parsed once per connection and planned for its values on every run', async () => {
    await t.catalogue.db.connection().execute(async (db) => {
      for (const n of [1, 2, 3, 4, 5, 6, 7]) {
        const r = await prepared(sql<{ n: number }>`select ${n}::int + 1 as n`).execute(db);
        expect(r.rows[0].n).toBe(n + 1);
      }
      await sql`select ${1}::int as unmarked`.execute(db);
      const statements = await sql<{ statement: string; generic_plans: number; custom_plans: number }>`
        select statement, generic_plans::int, custom_plans::int from pg_prepared_statements`.execute(db);
      expect(statements.rows).toEqual([
        { statement: expect.stringContaining('select $1::int + 1 as n'), generic_plans: 0, custom_plans: 7 },
      ]);
    });
  });

  it('a connection keeps the statements it used last, and a forgotten one is prepared again', async () => {
    await t.catalogue.db.connection().execute(async (db) => {
      const shape = (i: number) =>
        prepared(sql<{ n: number }>`select ${i}::int + ${sql.raw(String(i))} as n`);
      for (let i = 0; i < MAX_PREPARED_PER_CONNECTION + 5; i++) {
        expect((await shape(i).execute(db)).rows[0].n).toBe(2 * i);
      }
      const kept = async () =>
        (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(db)).rows.map(
          (r) => r.statement,
        );
      let statements = await kept();
      expect(statements.length).toBe(MAX_PREPARED_PER_CONNECTION);
      expect(statements.some((x) => x.endsWith('+ 0 as n'))).toBe(false);
      expect((await shape(0).execute(db)).rows[0].n).toBe(0);
      statements = await kept();
      expect(statements.length).toBe(MAX_PREPARED_PER_CONNECTION);
      expect(statements.some((x) => x.endsWith('+ 0 as n'))).toBe(true);
    });
  });

  it('a statement marked for a generic plan is planned once; marked searches stay planned per run', async () => {
    await t.catalogue.db.connection().execute(async (db) => {
      const generic = (n: number) =>
        sql<{ n: number }>`${sql.raw(GENERIC_PLAN_MARK)} select ${n}::int * 2 as n`.execute(db);
      const search = (n: number) => prepared(sql<{ n: number }>`select ${n}::int * 3 as n`).execute(db);
      for (const n of [1, 2, 3, 4, 5, 6, 7]) {
        expect((await generic(n)).rows[0].n).toBe(n * 2);
        expect((await search(n)).rows[0].n).toBe(n * 3);
      }
      // In a transaction a switch would not outlive a rollback: a search there is planned per run
      // all the same (for that transaction only), and the connection switches after it.
      expect((await generic(8)).rows[0].n).toBe(16);
      await sql`begin`.execute(db);
      expect((await search(8)).rows[0].n).toBe(24);
      await sql`rollback`.execute(db);
      expect((await sql`show plan_cache_mode`.execute(db)).rows[0]).toEqual({
        plan_cache_mode: 'force_generic_plan',
      });
      expect((await search(9)).rows[0].n).toBe(27);
      const statements = await sql<{ statement: string; generic_plans: number; custom_plans: number }>`
        select statement, generic_plans::int, custom_plans::int from pg_prepared_statements
        where statement like '%::int * %'`.execute(db);
      expect(statements.rows).toHaveLength(2);
      expect(statements.rows).toContainEqual({
        statement: expect.stringContaining('* 2 as n'),
        generic_plans: 8,
        custom_plans: 0,
      });
      expect(statements.rows).toContainEqual({
        statement: expect.stringContaining('* 3 as n'),
        generic_plans: 0,
        custom_plans: 9,
      });
      expect((await sql`show plan_cache_mode`.execute(db)).rows[0]).toEqual({
        plan_cache_mode: 'force_custom_plan',
      });
    });
  });
});
