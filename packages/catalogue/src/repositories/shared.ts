import { EarshotError } from '@earshot/common';
import type { Kysely, Transaction } from 'kysely';
import { retryOnContention } from '../connection/contention.ts';
import type { Database } from '../schema/database.ts';

/** A database handle or an open transaction: every repository function takes either. */
export type Db = Kysely<Database>;

/** Runs `work` in a transaction, or inside the caller's when `db` already is one. */
export function inTransaction<T>(db: Db, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(db as Transaction<Database>);
  return db.transaction().execute(work);
}

/**
 * inTransaction, run again whole when PostgreSQL ends it as a deadlock's victim or for a
 * serialization failure (retryOnContention), for writes whose triggers lock shared rows (the search
 * document's word counts) in an order no caller controls. `work` must do nothing but statements on
 * the transaction it is given. Inside the caller's transaction it runs once: a failure aborts the
 * caller's transaction too, which only the caller can run again.
 */
export function inRetriedTransaction<T>(
  db: Db,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  if (db.isTransaction) return work(db as Transaction<Database>);
  return retryOnContention(() => db.transaction().execute(work));
}

export interface PageRequest {
  limit: number;
  offset: number;
}

/** One page of a list and the exact size of the whole list. */
export interface Page<T> {
  count: number;
  items: T[];
}

export class ConflictError extends EarshotError {
  constructor(message: string, details?: unknown) {
    super(message, 'conflict', 409, details);
  }
}

/** PostgreSQL's unique_violation, optionally of one named constraint or index. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: string; constraint?: string };
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}
