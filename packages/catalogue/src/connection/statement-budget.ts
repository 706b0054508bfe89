import { AsyncLocalStorage } from 'node:async_hooks';
import net from 'node:net';
import type pg from 'pg';

/** Why a budget stopped its statements: its database time ran out, or its caller gave up. */
export type BudgetStop = 'budget' | 'aborted';

/** The statements of a budget were stopped; nothing of their work reaches the caller. */
export class StatementsStopped extends Error {
  constructor(
    readonly reason: BudgetStop,
    readonly limitMs: number,
  ) {
    super(
      reason === 'budget'
        ? `the statements needed more than ${limitMs} ms of database time`
        : 'the statements were abandoned by their caller',
    );
  }
}

interface Running {
  readonly started: number;
  readonly cancel?: () => void;
}

/**
 * Database time granted to one unit of work (a search): the time its statements run, summed over
 * the connections they run on (two statements in parallel spend it twice as fast). When it runs
 * out, or the caller's signal aborts (the client went away), every statement still running is
 * cancelled on the server and the work fails at once with StatementsStopped.
 */
export class StatementBudget {
  #spent = 0;
  #timer: NodeJS.Timeout | undefined;
  #stop: BudgetStop | undefined;
  readonly #running = new Set<Running>();
  readonly #listeners = new Set<(why: BudgetStop) => void>();
  readonly #signal: AbortSignal | undefined;
  readonly #onAbort = () => this.#halt('aborted');

  /** `limitMs` <= 0 or Infinity: no limit on time, only the signal. */
  constructor(
    readonly limitMs: number,
    signal?: AbortSignal,
  ) {
    this.#signal = signal;
    if (signal?.aborted) this.#stop = 'aborted';
    else signal?.addEventListener('abort', this.#onAbort, { once: true });
  }

  get stopped(): BudgetStop | undefined {
    return this.#stop;
  }

  /** Database time spent so far, the statements under way included. */
  spentMs(now = performance.now()): number {
    let spent = this.#spent;
    for (const r of this.#running) spent += now - r.started;
    return spent;
  }

  /** Counts one statement from now until the returned function is called; `cancel` stops it on the server. */
  track(cancel?: () => void): () => void {
    const running: Running = { started: performance.now(), cancel };
    this.#running.add(running);
    this.#schedule();
    return () => {
      if (!this.#running.delete(running)) return;
      this.#spent += performance.now() - running.started;
      this.#schedule();
    };
  }

  onStop(listener: (why: BudgetStop) => void): void {
    if (this.#stop) listener(this.#stop);
    else this.#listeners.add(listener);
  }

  /** Lets go of the signal and the timer once the work is over. */
  close(): void {
    clearTimeout(this.#timer);
    this.#signal?.removeEventListener('abort', this.#onAbort);
    this.#listeners.clear();
  }

  #schedule(): void {
    clearTimeout(this.#timer);
    if (this.#stop || !this.#running.size || !(this.limitMs > 0) || this.limitMs === Infinity) return;
    // At the present rate of spending (one ms per ms per statement under way), the moment the
    // budget is gone; rescheduled whenever a statement starts or ends.
    const left = (this.limitMs - this.spentMs()) / this.#running.size;
    this.#timer = setTimeout(() => this.#halt('budget'), Math.max(0, left));
    this.#timer.unref();
  }

  #halt(why: BudgetStop): void {
    if (this.#stop) return;
    this.#stop = why;
    clearTimeout(this.#timer);
    for (const listener of this.#listeners) listener(why);
    for (const r of this.#running) r.cancel?.();
  }
}

const current = new AsyncLocalStorage<StatementBudget>();

/**
 * Runs `work` with every statement it sends charged to `budget`. Fails with StatementsStopped as
 * soon as the budget stops (nothing waits for a cancelled statement to come back), else settles
 * as `work` does.
 */
export async function withinBudget<T>(budget: StatementBudget, work: () => Promise<T>): Promise<T> {
  const stopped = new Promise<never>((_, reject) =>
    budget.onStop((why) => reject(new StatementsStopped(why, budget.limitMs))),
  );
  const running = current.run(budget, work);
  // Whichever loses the race is settled unobserved.
  stopped.catch(() => {});
  running.catch(() => {});
  try {
    return await Promise.race([running, stopped]);
  } finally {
    budget.close();
  }
}

/** Runs `work` with its statements charged to no search's budget (one statement shared by several). */
export function outsideBudget<T>(work: () => T): T {
  return current.exit(work);
}

/**
 * Sends a statement for a pooled client (`send`, pg's promise form) under the budget of the work
 * calling it, if any; `cancel` stops it on the server. A stopped budget sends nothing more.
 */
export function budgeted<T>(send: () => Promise<T>, cancel?: () => void): Promise<T> {
  const budget = current.getStore();
  if (!budget) return send();
  if (budget.stopped) return Promise.reject(new StatementsStopped(budget.stopped, budget.limitMs));
  const done = budget.track(cancel);
  const result = send();
  result.then(done, done);
  return result;
}

/**
 * Asks the server to cancel the statement `client` is running (the protocol's CancelRequest, on a
 * connection of its own: it needs no free pooled connection, nor a backend slot). The statement
 * then fails with 57014 and its connection goes back to the pool.
 */
export function cancelOnServer(client: pg.Client): void {
  const { processID, secretKey, host, port } = client as unknown as {
    processID: number | null;
    secretKey: number | null;
    host: string;
    port: number;
  };
  if (processID === null || secretKey === null) return;
  const socket = host.startsWith('/') ? net.connect(`${host}/.s.PGSQL.${port}`) : net.connect(port, host);
  socket.setTimeout(10_000, () => socket.destroy());
  socket.on('error', () => {});
  socket.on('connect', () => {
    const request = Buffer.alloc(16);
    request.writeInt32BE(16, 0);
    request.writeInt32BE(80877102, 4); // the CancelRequest code
    request.writeInt32BE(processID, 8);
    request.writeInt32BE(secretKey, 12);
    socket.end(request);
  });
}
