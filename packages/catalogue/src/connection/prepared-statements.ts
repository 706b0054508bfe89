import pg from 'pg';
import { budgeted, cancelOnServer } from './statement-budget.ts';

/**
 * Statements whose SQL text starts with this comment run as named prepared statements: each
 * connection parses them once and afterwards sends only Bind/Execute, which saves the parse and
 * about 0.1 ms of extended-protocol round trip per statement (measured: a one-row select costs
 * the same as an unparameterized one). Search statements carry it; each connection keeps the
 * MAX_PREPARED_PER_CONNECTION it used last.
 */
export const PREPARED_MARK = '/* prepared */';

/**
 * Set on every pooled connection: a prepared statement is still planned for its values on every
 * run (as an unnamed one is), never a generic plan that ignores them. A word in 24 sounds and one
 * in 90,000 want different plans.
 */
export const PREPARED_SESSION_SETUP = 'SET plan_cache_mode = force_custom_plan';

/**
 * Statements whose best plan does not depend on their values (a read by primary keys) start with
 * this comment instead: prepared the same way, but planned once per connection (a generic plan).
 * Planning was most of such a statement's cost on the server: a one-row read by id with its user
 * and pack took 5–8× longer planned per run than run from its kept plan (pgbench, 100k sounds).
 * The connection switches plan_cache_mode only when the kind of statement changes, and only
 * outside a transaction (a rolled-back SET would leave it unknown); inside one, the statement is
 * planned for its values as before — slower, never wrong.
 */
export const GENERIC_PLAN_MARK = '/* prepared, generic plan */';

const GENERIC_SETUP = 'SET plan_cache_mode = force_generic_plan';

/** Statements one connection keeps prepared; past this the least recently used is deallocated. */
export const MAX_PREPARED_PER_CONNECTION = 100;

/** A pg client that runs marked statements as named prepared statements (see PREPARED_MARK). */
export class PreparingClient extends pg.Client {
  /** Statement text → its name on this connection, least recently used first. */
  readonly #names = new Map<string, string>();
  #made = 0;
  /** The session's plan_cache_mode as this client last set it (the pool's setup sets custom). */
  #plans: 'custom' | 'generic' | 'unknown' = 'custom';

  // pg.Client.query has many overloads: this forwards them all unchanged. The promise form (the
  // one Kysely uses) is charged to the statement budget of the work sending it, if any.
  override query(config: any, values?: any, callback?: any): any {
    if (
      typeof callback === 'function' ||
      typeof values === 'function' ||
      typeof config?.submit === 'function'
    ) {
      return this.#send(config, values, callback);
    }
    return budgeted(
      () => this.#send(config, values, callback),
      () => cancelOnServer(this),
    );
  }

  #send(config: any, values?: any, callback?: any): any {
    if (typeof config === 'string' && Array.isArray(values)) {
      const generic = config.startsWith(GENERIC_PLAN_MARK);
      if (generic || config.startsWith(PREPARED_MARK)) {
        const run = () => super.query({ name: this.#nameOf(config), text: config, values }, callback);
        const setting = this.#plan(generic ? 'generic' : 'custom');
        // The statement follows its SET once that is answered (pg 9 will refuse a second query
        // sent while one runs); a caller's callback keeps pg's own queue.
        return setting && !callback ? setting.then(run) : run();
      }
    }
    return super.query(config, values, callback);
  }

  /** Sends the SET the next statement needs, when it needs one (see GENERIC_PLAN_MARK). */
  #plan(wanted: 'custom' | 'generic'): Promise<void> | undefined {
    if (this.#plans === wanted) return undefined;
    // Idle: nothing in flight or queued ahead, so the status read now is the one the SET meets
    // (with Kysely a connection always is: its owner awaits each statement).
    const idle = (this as unknown as { readyForQuery?: boolean }).readyForQuery === true;
    const status = idle ? this.getTransactionStatus() : undefined;
    if (status === 'I') {
      this.#plans = wanted;
      return super.query(wanted === 'generic' ? GENERIC_SETUP : PREPARED_SESSION_SETUP).then(
        () => {},
        () => {
          this.#plans = 'unknown';
        },
      );
    }
    if (status === 'T' && wanted === 'custom') {
      // A search in a transaction on a connection left generic: custom plans until the
      // transaction ends, after which the session is generic again, as recorded.
      return super.query(`${PREPARED_SESSION_SETUP.replace('SET', 'SET LOCAL')}`).then(
        () => {},
        () => {},
      );
    }
    return undefined;
  }

  #nameOf(text: string): string {
    const known = this.#names.get(text);
    if (known !== undefined) {
      this.#names.delete(text);
      this.#names.set(text, known);
      return known;
    }
    if (this.#names.size >= MAX_PREPARED_PER_CONNECTION) {
      const [oldText, oldName] = this.#names.entries().next().value as [string, string];
      this.#names.delete(oldText);
      // Queued ahead of the statement that needs the room. A name is never reused on a connection,
      // so pg's own record of it (dropped here too) can never make it skip a Parse.
      super.query(`DEALLOCATE ${oldName}`).catch(() => {});
      delete (this as unknown as { connection?: { parsedStatements?: Record<string, string> } }).connection
        ?.parsedStatements?.[oldName];
    }
    const name = `earshot_${++this.#made}`;
    this.#names.set(text, name);
    return name;
  }
}
