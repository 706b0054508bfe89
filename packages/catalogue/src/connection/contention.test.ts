import { testService } from '@earshot/common/testing';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { inRetriedTransaction } from '../repositories/shared.ts';
import { testBackends, useRepositoryCatalogue } from '../testing/index.ts';
import { CatalogueContentionError, isCatalogueContention } from './contention.ts';

const postgresUrl = await testService('postgres');

describe.each(testBackends(postgresUrl))('a transaction run again after contention on %s', (backend) => {
  const { db, unique } = useRepositoryCatalogue(backend, postgresUrl);

  /** The database itself fails the statement with this SQLSTATE, as it fails a deadlock's victim. */
  const raise = (state: string) =>
    sql`do $$ begin raise exception 'contended' using errcode = ${sql.lit(state)}; end $$`;

  const tagsNamed = async (name: string) =>
    (await db().selectFrom('tags').select('name').where('name', '=', name).execute()).length;

  it('runs a deadlock victim or a serialization failure again, whole, and commits it once', async () => {
    const name = unique('contended-');
    let attempts = 0;
    const result = await inRetriedTransaction(db(), async (trx) => {
      attempts++;
      await trx.insertInto('tags').values({ name }).execute();
      if (attempts === 1) await raise('40P01').execute(trx);
      if (attempts === 2) await raise('40001').execute(trx);
      return 'done';
    });
    expect({ result, attempts }).toEqual({ result: 'done', attempts: 3 });
    // The failed attempts' inserts were rolled back with them.
    expect(await tagsNamed(name)).toBe(1);
  });

  it('gives up after its attempts with a typed error, leaving nothing behind', async () => {
    const name = unique('contended-');
    let attempts = 0;
    const failure = await inRetriedTransaction(db(), async (trx) => {
      attempts++;
      await trx.insertInto('tags').values({ name }).execute();
      await raise('40P01').execute(trx);
    }).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(CatalogueContentionError);
    expect(failure).toMatchObject({ status: 503, code: 'catalogue_contention', attempts: 5 });
    expect((failure as CatalogueContentionError).cause).toMatchObject({ code: '40P01' });
    expect(isCatalogueContention(failure)).toBe(true);
    expect(attempts).toBe(5);
    expect(await tagsNamed(name)).toBe(0);
  });

  it('runs any other failure once, and never runs again inside the caller’s transaction', async () => {
    let attempts = 0;
    const other = await inRetriedTransaction(db(), async (trx) => {
      attempts++;
      await raise('23505').execute(trx);
    }).catch((err: unknown) => err);
    expect(other).toMatchObject({ code: '23505' });
    expect(isCatalogueContention(other)).toBe(false);
    expect(attempts).toBe(1);

    // Nested: the victim's failure aborts the outer transaction, so only its caller may run it again.
    attempts = 0;
    const nested = await db()
      .transaction()
      .execute((outer) =>
        inRetriedTransaction(outer, async (trx) => {
          attempts++;
          await raise('40P01').execute(trx);
        }),
      )
      .catch((err: unknown) => err);
    expect(nested).toMatchObject({ code: '40P01' });
    expect(attempts).toBe(1);
  });
});
