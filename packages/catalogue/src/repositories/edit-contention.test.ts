import { testService } from '@earshot/common/testing';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  openTestCatalogue,
  setModerationState,
  setProcessingState,
  type TestCatalogue,
} from '../testing/index.ts';
import { createSound, editSound } from './sounds.ts';
import { createUser } from './users.ts';

const postgresUrl = await testService('postgres');

/**
 * Edits of two public sounds at once on the PostgreSQL server (the embedded database runs one
 * transaction at a time). An edit moves the sound's search document: the triggers take away the
 * old words' counts, then add the new ones, each pass locking the words' rows in order, so two
 * edits that swap words lock them in crossing orders. PostgreSQL then ends one of them as a
 * deadlock's victim (40P01); the fuzz suite met it under load as a 500 from the edit resource.
 */
describe.skipIf(!postgresUrl)('concurrent edits on the PostgreSQL server', () => {
  let t: TestCatalogue;
  beforeAll(async () => {
    t = await openTestCatalogue('postgres', { postgresUrl });
  });
  afterAll(() => t?.cleanup());

  const db = () => t.catalogue.db;

  async function publicSound(userId: number, tag: string, duration: number): Promise<number> {
    const { id } = await createSound(db(), {
      userId,
      name: 'quiet room',
      description: '',
      tags: [tag],
      license: 'Creative Commons 0',
      originalFilename: `${tag}.wav`,
      originalPath: `originals/${tag}.wav`,
    });
    // Durations in different buckets, so the duration histogram's rows do not queue the two edits.
    await db().updateTable('sounds').set({ duration }).where('id', '=', id).execute();
    await setProcessingState(db(), id, { state: 'Processed', progress: 1 });
    await setModerationState(db(), id, 'ok', null);
    return id;
  }

  async function deadlocks(): Promise<number> {
    const { rows } = await sql<{ deadlocks: number }>`
      select deadlocks from pg_stat_database where datname = current_database()`.execute(db());
    return Number(rows[0].deadlocks);
  }

  async function waitingForLocks(): Promise<number> {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock'`.execute(db());
    return rows[0].n;
  }

  it('two edits that lock search rows in crossing orders both succeed: the deadlock victim runs again', async () => {
    const user = await createUser(db(), { username: 'contender' });
    const a = await publicSound(user.id, '0aa', 1);
    const b = await publicSound(user.id, '1bb', 11);
    // The words both documents hold (the name's, the username's) sort after the tags' digits.
    const { rows: shared } = await sql<{ lexeme: string }>`
      select lexeme from search_term_df where ndoc = 2 order by lexeme`.execute(db());
    expect(shared.length).toBeGreaterThan(0);
    expect(shared.every((r) => r.lexeme > '1bb')).toBe(true);
    const before = await deadlocks();

    // Another transaction holds the shared words' rows: each edit takes its old tag's row, then
    // waits. Let go, one edit takes the shared rows and goes on to the other's old tag, while the
    // other waits for the shared rows it holds: a deadlock, every time.
    const holder = new pg.Client({ connectionString: t.location });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select 1 from search_term_df where ndoc = 2 for update');
      const edits = Promise.allSettled([
        editSound(db(), a, { tags: ['1bb'] }),
        editSound(db(), b, { tags: ['0aa'] }),
      ]);
      await expect.poll(waitingForLocks, { timeout: 10_000, interval: 20 }).toBe(2);
      await holder.query('commit');
      const outcomes = await edits;
      expect(outcomes.map((o) => (o.status === 'rejected' ? String(o.reason) : o.status))).toEqual([
        'fulfilled',
        'fulfilled',
      ]);
    } finally {
      await holder.end();
    }
    // The deadlock did happen (the test reached the case it is about).
    await expect.poll(deadlocks, { timeout: 5_000, interval: 50 }).toBeGreaterThan(before);

    const tags = await db().selectFrom('sounds').select(['id', 'tags']).where('id', 'in', [a, b]).execute();
    expect(Object.fromEntries(tags.map((r) => [r.id, r.tags]))).toEqual({ [a]: ['1bb'], [b]: ['0aa'] });
    // Counted once each: the victim's first attempt left nothing behind.
    const { rows: counts } = await sql<{ lexeme: string; ndoc: number }>`
      select lexeme, ndoc from search_term_df where lexeme in ('0aa', '1bb') order by lexeme`.execute(db());
    expect(counts).toEqual([
      { lexeme: '0aa', ndoc: 1 },
      { lexeme: '1bb', ndoc: 1 },
    ]);
  }, 60_000);
});
