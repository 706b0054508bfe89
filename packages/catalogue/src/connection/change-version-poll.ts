import { readCatalogueVersion } from '../repositories/catalogue-version.ts';
import type { Db } from '../repositories/shared.ts';
import type { ChangeVersion } from './change-feed.ts';
import { sharedRoundTrips } from './shared-round-trips.ts';

/**
 * The catalogue's change version for the embedded database, where no notification reaches this
 * process: the catalogue's change counter, read again for each request (`beforeRequest`) before
 * any cached answer is served. The counter moves when a transaction commits, in whichever process,
 * so a read that starts after the commit sees the move, and the listeners (record and rendered
 * sound caches) are told before the reading is handed out. The readings of concurrent requests
 * share round trips (`sharedRoundTrips`). A failed reading reports "unknown" (caches skipped for
 * that request) and counts as a change.
 */
export class CatalogueVersionPoll implements ChangeVersion {
  private last: number | undefined;
  private readonly listeners: Array<() => void> = [];
  private readonly read: () => Promise<number>;

  constructor(db: Db) {
    this.read = sharedRoundTrips(() => readCatalogueVersion(db));
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  async current(): Promise<number | undefined> {
    let version: number | undefined;
    try {
      version = await this.read();
    } catch {
      version = undefined;
    }
    if (version === undefined || version !== this.last) {
      this.last = version;
      for (const listener of this.listeners) listener();
    }
    return version;
  }

  beforeRequest(): Promise<number | undefined> {
    return this.current();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
