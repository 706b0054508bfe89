import { type RawBuilder, sql } from 'kysely';
import { PREPARED_MARK } from '../connection/prepared-statements.ts';
import { StatementBudget, StatementsStopped, withinBudget } from '../connection/statement-budget.ts';
import { isCatalogueUnavailable } from '../connection/unavailable.ts';
import { SearchAbandoned, SearchExecutionError } from './errors.ts';

/**
 * Database time one search may spend unless told otherwise: its statements' running time summed
 * over the connections they use (a page and its count in parallel spend it twice as fast). Leaves
 * room, within the 5 s of database time a request may cost, for the reads that present the page.
 */
export const DEFAULT_SEARCH_BUDGET_MS = 4000;

/** The limits of one search's work in the database. */
export interface SearchLimits {
  /** Database time in ms (default DEFAULT_SEARCH_BUDGET_MS; 0 or Infinity: none). */
  budgetMs?: number;
  /** Aborted when the search's answer is no longer wanted (its client went away). */
  signal?: AbortSignal;
}

/**
 * Runs a search's statements under its limits: past its budget, or once its signal aborts, its
 * statements are cancelled on the server and the search fails at once (guardSearch). An embedded
 * database cannot cancel a statement; there the search only stops waiting for it.
 */
export function limitedSearch<T>(limits: SearchLimits, run: () => Promise<T>): Promise<T> {
  const budget = new StatementBudget(limits.budgetMs ?? DEFAULT_SEARCH_BUDGET_MS, limits.signal);
  return guardSearch(() => withinBudget(budget, run));
}

/** Database errors never reach the caller as such: they become typed search errors. */
export async function guardSearch<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof SearchExecutionError) throw err;
    if (err instanceof StatementsStopped) {
      if (err.reason === 'aborted') throw new SearchAbandoned(err);
      throw tooExpensive(err, err.limitMs);
    }
    // The database out of reach is no fault of the search: it passes on as it is, for the caller
    // to answer as "unavailable".
    if (isCatalogueUnavailable(err)) throw err;
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('22')) {
      throw new SearchExecutionError('A value in the search is out of range for its field.', err, 400);
    }
    // Cancelled by the server's own statement_timeout (one an operator set for the role, say).
    if (code === '57014') throw tooExpensive(err);
    throw new SearchExecutionError('The search could not be run.', err, 500);
  }
}

/**
 * A search that ran out of database time is a well-formed request the service will not carry
 * out as it is: 409, the contract's "valid request that cannot be processed, reason in detail"
 * (not a 5xx: nothing failed, and the same search would fail again).
 */
function tooExpensive(cause: unknown, limitMs?: number): SearchExecutionError {
  const budget = limitMs ? ` (${Math.round(limitMs) / 1000} s of database time)` : '';
  return new SearchExecutionError(
    `The search was too expensive: it needed more than its budget${budget} and was stopped. ` +
      'Narrow it: fewer or more selective conditions in filter or descriptors_filter, rarer words ' +
      'in the query, or a smaller page.',
    cause,
    409,
  );
}

/**
 * Runs a statement as a named prepared statement on each server connection (see PREPARED_MARK;
 * each connection keeps the ones it used last, so statements shaped by arbitrary filters are fine).
 */
export function prepared<T>(statement: RawBuilder<T>): RawBuilder<T> {
  return sql<T>`${sql.raw(PREPARED_MARK)} ${statement}`;
}
