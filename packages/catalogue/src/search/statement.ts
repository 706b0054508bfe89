import { type Kysely, type RawBuilder, sql } from 'kysely';
import { PREPARED_MARK } from '../connection/prepared-statements.ts';
import { isCatalogueUnavailable } from '../connection/unavailable.ts';
import { SearchExecutionError } from './errors.ts';

/**
 * Default statement timeout: none. The wrapper costs three extra round trips per statement
 * (BEGIN, set_config, COMMIT), which doubles the latency of cheap searches; a deployment that
 * wants the protection passes `timeoutMs` (upstream Solr allowed 1 s).
 */
export const DEFAULT_SEARCH_TIMEOUT_MS = 0;

/**
 * Runs `work` in a transaction whose statements are cancelled after `timeoutMs`, so one
 * pathological search cannot hold a connection and a core indefinitely.
 */
export async function withStatementTimeout<T>(
  db: Kysely<any>,
  timeoutMs: number,
  work: (db: Kysely<any>) => Promise<T>,
): Promise<T> {
  // PGlite (single-threaded wasm) never fires the timer, so there the wrapper would only add round trips.
  if (timeoutMs <= 0 || !(await enforcesTimeouts(db))) return work(db);
  return db.transaction().execute(async (trx) => {
    await sql`select set_config('statement_timeout', ${String(Math.max(1, Math.round(timeoutMs)))}, true)`.execute(
      trx,
    );
    return work(trx);
  });
}

/** Database errors never reach the caller as such: they become typed search errors. */
export async function guardSearch<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof SearchExecutionError) throw err;
    // The database out of reach is no fault of the search: it passes on as it is, for the caller
    // to answer as "unavailable".
    if (isCatalogueUnavailable(err)) throw err;
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('22')) {
      throw new SearchExecutionError('A value in the search is out of range for its field.', err, 400);
    }
    if (code === '57014') {
      throw new SearchExecutionError('The search took too long and was cancelled; narrow it down.', err, 503);
    }
    throw new SearchExecutionError('The search could not be run.', err, 500);
  }
}

const timeoutSupport = new WeakMap<Kysely<any>, Promise<boolean>>();

function enforcesTimeouts(db: Kysely<any>): Promise<boolean> {
  let known = timeoutSupport.get(db);
  if (!known) {
    known = sql<{ v: string }>`select version() as v`
      .execute(db)
      .then((r) => !/PGlite|emscripten/i.test(r.rows[0]?.v ?? ''))
      .catch(() => false);
    timeoutSupport.set(db, known);
  }
  return known;
}

/**
 * Runs a statement as a named prepared statement on each server connection (see PREPARED_MARK;
 * each connection keeps the ones it used last, so statements shaped by arbitrary filters are fine).
 */
export function prepared<T>(statement: RawBuilder<T>): RawBuilder<T> {
  return sql<T>`${sql.raw(PREPARED_MARK)} ${statement}`;
}
