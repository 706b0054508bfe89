import { sql } from 'kysely';
import type { Db } from './shared.ts';

/** A catalogue-wide task's lease as its holder knows it (migration `*-task-leases`). */
export interface TaskLease {
  name: string;
  owner: string;
  epoch: number;
}

/**
 * Takes the task's lease for `ttlMs` when nobody holds a live one. One statement, so two processes
 * racing for it cannot both win. Undefined: another owner holds it.
 */
export async function acquireTaskLease(
  db: Db,
  name: string,
  owner: string,
  ttlMs: number,
): Promise<TaskLease | undefined> {
  const { rows } = await sql<{ epoch: number }>`
    INSERT INTO task_leases (name, owner, epoch, expires_at)
    VALUES (${name}, ${owner}, 1, now() + make_interval(secs => ${ttlMs / 1000}))
    ON CONFLICT (name) DO UPDATE
      SET owner = excluded.owner, epoch = task_leases.epoch + 1, expires_at = excluded.expires_at
      WHERE task_leases.expires_at <= now()
    RETURNING epoch`.execute(db);
  return rows[0] ? { name, owner, epoch: Number(rows[0].epoch) } : undefined;
}

/** Moves the expiry on; false when the lease is no longer this holder's (it expired and was taken). */
export async function renewTaskLease(db: Db, lease: TaskLease, ttlMs: number): Promise<boolean> {
  const { rows } = await sql`
    UPDATE task_leases SET expires_at = now() + make_interval(secs => ${ttlMs / 1000})
    WHERE name = ${lease.name} AND owner = ${lease.owner} AND epoch = ${lease.epoch}
    RETURNING name`.execute(db);
  return rows.length === 1;
}

/** Gives the lease up (a no-op when it was taken over meanwhile); the row stays, for the epoch. */
export async function releaseTaskLease(db: Db, lease: TaskLease): Promise<void> {
  await sql`
    UPDATE task_leases SET expires_at = '-infinity'
    WHERE name = ${lease.name} AND owner = ${lease.owner} AND epoch = ${lease.epoch}`.execute(db);
}
