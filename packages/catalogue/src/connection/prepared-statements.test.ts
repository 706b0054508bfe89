import { testService } from '@earshot/common/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepared } from '../search/statement.ts';
import { openTestCatalogue, type TestCatalogue } from '../testing/index.ts';
import { MAX_PREPARED_PER_CONNECTION } from './prepared-statements.ts';

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
});
