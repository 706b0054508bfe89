import type { Logger } from '@earshot/common';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type { EmbeddedConnection } from './embedded-connection.ts';

// What a connection attempt reports when nobody hosts the database at the old address any more.
const GONE_CODES = new Set(['ECONNREFUSED', 'ENOENT', 'ECONNRESET', 'EPIPE']);

function hostIsGone(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return GONE_CODES.has(e?.code ?? '') || /Connection terminated|Too many connections/.test(e?.message ?? '');
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
      return await used.pool.connect();
    } catch (err) {
      if (this.#ended || used.kind === 'pglite') throw err;
      // A connection asked of a pool that was replaced (or is being replaced) meanwhile is asked
      // again of the new one, whatever the old one answered.
      const replaced = this.#current !== used || this.#reacquiring !== undefined;
      if (!replaced && !hostIsGone(err)) throw err;
      await this.#follow(used);
      return this.#current.pool.connect();
    }
  }

  async end(): Promise<void> {
    this.#ended = true;
    await this.#reacquiring?.catch(() => {});
    await this.#current.pool.end();
    await this.#current.release();
  }

  #follow(gone: EmbeddedConnection): Promise<void> {
    if (this.#current !== gone) return Promise.resolve();
    this.#reacquiring ??= (async () => {
      this.logger.info('catalogue: the process hosting the embedded database has gone; finding the new host');
      await gone.pool.end().catch(() => {});
      this.#current = await this.reacquire();
      this.logger.info({ kind: this.#current.kind }, 'catalogue: reconnected to the embedded database');
    })().finally(() => {
      this.#reacquiring = undefined;
    });
    return this.#reacquiring;
  }
}
