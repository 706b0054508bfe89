import type { Logger } from '@earshot/common';
import pg from 'pg';
import { budgeted } from './statement-budget.ts';

/**
 * How long a statement to an embedded host may go without an answer. Far beyond any statement we
 * run (the embedded database's largest migrations and searches take seconds), but finite: PGlite
 * enforces no statement_timeout, and a statement that is never answered — its host gone without a
 * word, or the host's one backend held by a connection waiting for something that itself waits —
 * must not hold its caller, say the in-process pipeline's only job slot, for good.
 */
export const HOSTED_ANSWER_MS = 120_000;

/**
 * A pg client class whose statements fail once one has waited `answerMs` for its answer: the
 * connection is closed, so the statement (and any queued behind it on the connection) fails as a
 * lost connection ("Connection terminated unexpectedly", which callers treat as the database being
 * unavailable), and the pool drops the client when it comes back. Closing the socket also ends the
 * connection's session on the host, which rolls back its open transaction and frees the backend.
 */
export function answeringClient(answerMs: number, logger?: Logger): typeof pg.Client {
  return class AnsweringClient extends pg.Client {
    // pg.Client.query has many overloads: this forwards them all unchanged, timing each.
    override query(...args: unknown[]): any {
      const timer = setTimeout(() => this.#noAnswer(), answerMs);
      timer.unref();
      const answered = () => clearTimeout(timer);
      const last = args.length - 1;
      const callback = args[last];
      if (typeof callback === 'function') {
        args[last] = (...outcome: unknown[]) => {
          answered();
          return callback(...outcome);
        };
        return (pg.Client.prototype.query as (...a: unknown[]) => unknown).apply(this, args);
      }
      const send = () => (pg.Client.prototype.query as (...a: unknown[]) => unknown).apply(this, args);
      // The embedded host cannot cancel a statement: a stopped budget only stops waiting for it.
      const submittable = typeof (args[0] as { submit?: unknown } | null)?.submit === 'function';
      const result = submittable ? send() : budgeted(send as () => Promise<unknown>);
      // A promise (the caller keeps its own handlers; this one only stops the timer) or a
      // submittable such as a cursor, which reports through its own events: not timed.
      if (result instanceof Promise) result.then(answered, answered);
      else answered();
      return result;
    }

    #noAnswer(): void {
      logger?.warn(
        { answerMs },
        'catalogue: a statement to the embedded database got no answer in time; closing its connection',
      );
      const stream = (this as unknown as { connection?: { stream?: { destroy(): void } } }).connection
        ?.stream;
      if (stream) stream.destroy();
      else this.end().catch(() => {});
    }
  };
}
