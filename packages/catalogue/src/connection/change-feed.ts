import type { Logger } from '@earshot/common';
import pg from 'pg';
import { sharedRoundTrips } from './shared-round-trips.ts';

/**
 * What caches ask before serving an answer: the catalogue's current change version, known to
 * include every change committed before the call. Undefined means "cannot tell" (not listening):
 * then nothing may be served from a cache.
 */
export interface ChangeVersion {
  current(): Promise<number | undefined>;
  /** Called (synchronously, before `current` resolves with the new version) on every change. */
  onChange(listener: () => void): void;
  /**
   * Run when a request arrives. A version that must be read to learn of changes (the embedded
   * database's counter) is read here, once, and the whole request runs under it (the listeners
   * have heard of every change committed before the request). A feed that is told of changes
   * answers undefined at once and costs nothing; its `current` waits where a cache needs it.
   */
  beforeRequest(): Promise<number | undefined>;
  close(): Promise<void>;
}

/** The channel the catalogue's change triggers notify (migration `*-catalogue-change-notify`). */
export const CATALOGUE_CHANGED_CHANNEL = 'earshot_catalogue_changed';

/** For catalogues that cannot notify (the embedded database): every answer is read afresh. */
export const NO_CHANGE_FEED: ChangeVersion = {
  current: () => Promise.resolve(undefined),
  onChange: () => {},
  beforeRequest: () => Promise.resolve(undefined),
  close: () => Promise.resolve(),
};

/**
 * Listens on one dedicated connection for the catalogue's change notifications. The version moves
 * on every notification and on every reconnect (changes may have been missed while down).
 *
 * A notification reaches this process a moment after the writer's commit, so "the version now"
 * would race with a client that writes and then searches. `current()` therefore waits for a round
 * trip on the listening connection that started after the call: PostgreSQL delivers the
 * notifications of transactions committed before a query ahead of that query's reply. Concurrent
 * callers share round trips (`sharedRoundTrips`). Requests are not held up when they arrive
 * (`beforeRequest`): only the caches that need `current` wait for it.
 */
export class CatalogueChangeFeed implements ChangeVersion {
  private client: pg.Client | undefined;
  private version = 0;
  private live = false;
  private closed = false;
  /**
   * A round trip on the listening connection, started after the call (shared). An empty query:
   * the server sends pending notifications before every ReadyForQuery whatever the query was, and
   * an empty one is not parsed, planned or executed. Under load these round trips run back to back
   * in every serving process, so their cost on the server counts.
   */
  private readonly sync = sharedRoundTrips(async () => {
    const client = this.client;
    if (!client) throw new Error('not connected');
    await client.query('');
  });
  private retry: NodeJS.Timeout | undefined;
  private readonly listeners: Array<() => void> = [];

  private constructor(
    private readonly url: string,
    private readonly logger: Logger,
  ) {}

  /** Connects and listens; a failed first connection is retried in the background (caches stay off). */
  static async start(url: string, logger: Logger): Promise<CatalogueChangeFeed> {
    const feed = new CatalogueChangeFeed(url, logger);
    await feed.connect();
    return feed;
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  async current(): Promise<number | undefined> {
    if (!this.live) return undefined;
    try {
      await this.sync();
    } catch {
      return undefined;
    }
    return this.live ? this.version : undefined;
  }

  beforeRequest(): Promise<number | undefined> {
    return Promise.resolve(undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.live = false;
    if (this.retry) clearTimeout(this.retry);
    await this.client?.end().catch(() => {});
  }

  private changed(): void {
    this.version++;
    for (const listener of this.listeners) listener();
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.url, application_name: 'earshot-api-changes' });
    client.on('notification', (message) => {
      if (message.channel === CATALOGUE_CHANGED_CHANNEL) this.changed();
    });
    const down = (err?: unknown) => {
      if (this.client !== client) return;
      this.client = undefined;
      this.live = false;
      this.changed();
      if (!this.closed) {
        this.logger.warn({ err }, 'catalogue change feed lost; search caches off until it is back');
        this.scheduleReconnect();
      }
      client.end().catch(() => {});
    };
    client.on('error', down);
    client.on('end', () => down());
    try {
      await client.connect();
      await client.query(`LISTEN ${CATALOGUE_CHANGED_CHANNEL}`);
    } catch (err) {
      client.end().catch(() => {});
      this.logger.warn({ err }, 'catalogue change feed could not listen; search caches off for now');
      this.scheduleReconnect();
      return;
    }
    this.client = client;
    // Anything may have changed while nobody listened.
    this.changed();
    this.live = true;
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.connect();
    }, 1_000);
    this.retry.unref();
  }
}
