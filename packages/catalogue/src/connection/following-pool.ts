import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '@earshot/common';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type { EmbeddedConnection } from './embedded-connection.ts';

/** How long the hand-over waits for this process's connections to the old host to close. */
const END_WAIT_MS = 5_000;

// What a connection attempt reports when nobody hosts the database at the old address any more.
const GONE_CODES = new Set(['ECONNREFUSED', 'ENOENT', 'ECONNRESET', 'EPIPE']);

function hostIsGone(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return GONE_CODES.has(e?.code ?? '') || /Connection terminated|Too many connections/.test(e?.message ?? '');
}

/** Why a wait for a connection of a replaced pool was given up (it is asked of the new pool instead). */
class PoolReplacedError extends Error {
  constructor() {
    super('the embedded database moved to another host while a connection was awaited');
    this.name = 'PoolReplacedError';
  }
}

/**
 * The pool Kysely uses in the embedded mode. It passes connections through from the current
 * connection (own host or another process's), and when the host it followed has gone — it finished
 * and freed the folder — it acquires the folder again: connecting to the new host, or hosting the
 * database itself. A query already running when the host went still fails; the next one succeeds.
 */
export class FollowingPool implements PostgresPool {
  #current: EmbeddedConnection;
  #reacquiring: Promise<void> | undefined;
  #ended = false;
  /** Per pool, how to give up each connect() still waiting on it (see #ask). */
  readonly #waiting = new WeakMap<EmbeddedConnection, Set<(reason: Error) => void>>();

  constructor(
    initial: EmbeddedConnection,
    private readonly reacquire: () => Promise<EmbeddedConnection>,
    private readonly logger: Logger,
  ) {
    this.#current = initial;
  }

  get kind(): EmbeddedConnection['kind'] {
    return this.#current.kind;
  }

  async connect(): Promise<PostgresPoolClient> {
    // While the new host is being found, the old pool is ended: wait for the new one instead of
    // asking the old ("Cannot use a pool after calling end on the pool").
    if (this.#reacquiring) await this.#reacquiring;
    const used = this.#current;
    try {
      return await this.#ask(used);
    } catch (err) {
      if (this.#ended || used.kind === 'pglite') throw err;
      // A connection asked of a pool that was replaced (or is being replaced) meanwhile is asked
      // again of the new one, whatever the old one answered.
      const replaced = this.#current !== used || this.#reacquiring !== undefined;
      if (!replaced && !hostIsGone(err)) throw err;
      await this.#follow(used);
      return this.#ask(this.#current);
    }
  }

  async end(): Promise<void> {
    this.#ended = true;
    await this.#reacquiring?.catch(() => {});
    await this.#current.pool.end();
    await this.#current.release();
  }

  /**
   * A connection of `used`'s pool, or a PoolReplacedError when that pool is given up first.
   * pg-pool's end() never answers the callers queued for a free connection (all of them busy when
   * the host died): without this, such a caller — a pipeline job's statement, the reconciler's —
   * waited forever while every later one was served by the new host (issue 19).
   */
  #ask(used: EmbeddedConnection): Promise<PostgresPoolClient> {
    const asked = used.pool.connect();
    let waiting = this.#waiting.get(used);
    if (!waiting) {
      waiting = new Set();
      this.#waiting.set(used, waiting);
    }
    const list = waiting;
    return new Promise<PostgresPoolClient>((resolve, reject) => {
      let settled = false;
      const giveUp = (reason: Error) => {
        if (settled) return;
        settled = true;
        reject(reason);
        // Should the old pool still hand one out, it goes straight back (and, the pool ending, away).
        asked.then(
          (client) => client.release(),
          () => {},
        );
      };
      list.add(giveUp);
      asked.then(
        (client) => {
          list.delete(giveUp);
          if (settled) return;
          settled = true;
          resolve(client);
        },
        (err: unknown) => {
          list.delete(giveUp);
          if (settled) return;
          settled = true;
          reject(err);
        },
      );
    });
  }

  #follow(gone: EmbeddedConnection): Promise<void> {
    if (this.#current !== gone) return Promise.resolve();
    this.#reacquiring ??= (async () => {
      this.logger.info('catalogue: the process hosting the embedded database has gone; finding the new host');
      const waiting = this.#waiting.get(gone);
      if (waiting?.size) {
        this.logger.debug(
          { waiting: waiting.size },
          'catalogue: connections awaited from the old host are asked of the new one',
        );
      }
      // Ended first, so that no new caller is queued on it; then its queue is answered here.
      const ended = gone.pool.end().catch(() => {});
      for (const giveUp of [...(waiting ?? [])]) giveUp(new PoolReplacedError());
      // Our connections to the old host go before we look for the new one (a host that is closing
      // waits for them); but not for ever: end() resolves only once every checked-out connection
      // is back, and a caller holding one might itself be waiting here for a second.
      await Promise.race([ended, sleep(END_WAIT_MS, undefined, { ref: false })]);
      this.#current = await this.reacquire();
      this.logger.info({ kind: this.#current.kind }, 'catalogue: reconnected to the embedded database');
    })().finally(() => {
      this.#reacquiring = undefined;
    });
    return this.#reacquiring;
  }
}
