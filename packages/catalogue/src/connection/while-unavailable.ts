import { setTimeout as sleep } from 'node:timers/promises';
import { isCatalogueUnavailable } from './unavailable.ts';

export interface RetryWhileUnavailableOptions {
  /**
   * How long after the first failure the work is still tried again. Default 120 s: as long as a
   * process waits for its data folder, and longer than a new embedded host takes to open it.
   */
  withinMs?: number;
  /** Told of each failure that is retried (to log it). */
  onRetry?: (err: unknown, attempt: number) => void;
}

const FIRST_PAUSE_MS = 100;
const LONGEST_PAUSE_MS = 2_000;

/**
 * Runs `work` again while it fails because the catalogue cannot be reached: an embedded database
 * whose host died (the pool then finds the new host or hosts the database itself on the next
 * connection, following-pool.ts), or a server restarting. A request may answer such a failure with
 * a 503 and leave the retry to its client; a long command (a bulk import) is its own client, and
 * without this gave up at the first statement the old host took with it.
 *
 * Only for work that may run again after such a failure: reads, and transactions whose every effect
 * is in the database (one that lost its connection before COMMIT was rolled back). Work whose COMMIT
 * may have reached the host before it went, or with effects outside the database, must first settle
 * what the failed attempt left (SoundIntake.createOnce).
 */
export async function retryWhileUnavailable<T>(
  work: () => Promise<T>,
  options: RetryWhileUnavailableOptions = {},
): Promise<T> {
  const deadline = Date.now() + (options.withinMs ?? 120_000);
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (!isCatalogueUnavailable(err) || Date.now() >= deadline) throw err;
      options.onRetry?.(err, attempt);
      await sleep(Math.min(FIRST_PAUSE_MS * 2 ** (attempt - 1), LONGEST_PAUSE_MS));
    }
  }
}
