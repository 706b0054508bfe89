import { setTimeout as sleep } from 'node:timers/promises';
import { EarshotError } from '@earshot/common';

// Whether a statement failed because of what concurrent transactions held, not because of the
// statement: PostgreSQL ended it as a deadlock's victim (40P01) or refused it for a serialization
// failure (40001). Its transaction was rolled back whole, so running the same work again is the
// same as running it for the first time, and it will most likely pass.

const CONTENTION_STATES = new Set(['40P01', '40001']);

/** Work that met contention on every attempt it was given: worth trying again a moment later. */
export class CatalogueContentionError extends EarshotError {
  constructor(
    readonly attempts: number,
    override readonly cause: unknown,
  ) {
    super(
      `the change could not be made for changes running at the same time (tried ${attempts} times)`,
      'catalogue_contention',
      503,
    );
  }
}

/** A deadlock or serialization failure as PostgreSQL reports it, or the retries of one given up. */
export function isCatalogueContention(err: unknown): boolean {
  return err instanceof CatalogueContentionError || contentionState(err);
}

function contentionState(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && CONTENTION_STATES.has(code);
}

export interface RetryOnContentionOptions {
  /** Attempts in all, the first included (default 5). */
  attempts?: number;
  /** Told of each failure that is retried. */
  onRetry?: (err: unknown, attempt: number) => void;
}

/**
 * Runs `work` again when it fails with a deadlock or a serialization failure, after a short random
 * pause (the other transaction finishes meanwhile, and two victims do not meet again in step);
 * gives up with CatalogueContentionError. Only for work that is one whole transaction or one
 * statement outside any, with every effect in the database: the failed attempt was rolled back,
 * and nothing outside the database remembers it.
 */
export async function retryOnContention<T>(
  work: () => Promise<T>,
  options: RetryOnContentionOptions = {},
): Promise<T> {
  const attempts = options.attempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (!contentionState(err)) throw err;
      if (attempt >= attempts) throw new CatalogueContentionError(attempts, err);
      options.onRetry?.(err, attempt);
      await sleep(Math.random() * Math.min(20 * 2 ** attempt, 500));
    }
  }
}
