import { sql } from 'kysely';
import type { Db } from './shared.ts';

/**
 * Runs `work` only if no other process is running a task of the same name, on any process that
 * shares this catalogue: a session advisory lock held on one connection for the duration. Answers
 * undefined at once (without running `work`) when another holder has it. Used so that one process
 * at a time writes similarity snapshots. `work` must not use the catalogue: the embedded database
 * has one connection, held here.
 */
export async function runExclusiveTask<T>(
  db: Db,
  name: string,
  work: () => Promise<T>,
): Promise<T | undefined> {
  return db.connection().execute(async (connection) => {
    const taken = await sql<{ ok: boolean }>`select pg_try_advisory_lock(hashtext(${name})) as ok`.execute(
      connection,
    );
    if (!taken.rows[0]?.ok) return undefined;
    try {
      return await work();
    } finally {
      await sql`select pg_advisory_unlock(hashtext(${name}))`.execute(connection);
    }
  });
}
