import type { Logger } from '@earshot/common';
import type { Kysely } from 'kysely';
import type { ChangeVersion } from '../connection/change-feed.ts';
import { sharedRoundTrips } from '../connection/shared-round-trips.ts';
import { LivePostingIndex } from './live-posting-index.ts';
import type { SearchResult } from './page-statements.ts';
import { postingIndexAnswers } from './posting-index.ts';
import {
  catalogueSnapshot,
  type LoadedPostingIndex,
  loadPostingIndexSince,
  readDocuments,
} from './posting-index-load.ts';
import { decodePostingIndex, encodePostingIndex, inSharedMemory } from './posting-index-snapshot.ts';
import { type ClauseMemo, postingSearch } from './posting-search.ts';
import { isPrepared, type PreparedSearch, prepareSearch, type SearchRequest } from './prepare.ts';
import { readSearchChanges } from './search-changes.ts';
import { limitedSearch, type SearchLimits } from './statement.ts';

export interface LiveSearchIndexOptions {
  logger?: Logger;
  /**
   * Rebuild the lists in the background when the overlay holds more changed documents than this
   * share of the sounds (default 0.02; at least `rebuildAtLeast`, default 5,000).
   */
  rebuildShare?: number;
  rebuildAtLeast?: number;
  /** Wait before a failed build is tried again (default 30 s). */
  retryMs?: number;
  /**
   * Where the built lists are kept between starts: the first build reads them from here when it
   * can (then catches up from search_changes), and every build from the catalogue writes them.
   */
  snapshots?: SnapshotStore;
  /**
   * Keep the lists in shared memory and hand their bytes here each time new ones are in place (the
   * first build or snapshot read, and each rebuild): indexes in other threads adopt them (`adopt`)
   * instead of holding a copy of their own.
   */
  share?: (bytes: Uint8Array) => void;
  /**
   * Rebuild when the overlay grows (default true). False for an index that adopts the lists of
   * another that shares them: it waits for that one's rebuild instead of making a copy of its own.
   */
  rebuilds?: boolean;
}

/** A place for one snapshot of the index (a file, in the services' adapter). */
export interface SnapshotStore {
  /** The bytes last written, or undefined when there are none. */
  read(): Promise<Uint8Array | undefined>;
  /** Replaces the snapshot with these pieces, one after another. */
  write(parts: Uint8Array[]): Promise<void>;
}

/** Changed sounds whose documents are read per statement while catching up. */
const CATCH_UP_BATCH = 10_000;

/**
 * A process's posting index (issue 33), built in the background and kept current with the
 * catalogue: before it answers, it applies every change the catalogue's change version says may
 * have happened (on the server the notifications, on the embedded database its counter: the same
 * bound as the answer caches), reading the changed sounds from `search_changes`. Until the first
 * build is done, and for the searches the index does not answer (exclusions, numbers, custom
 * weights, other filters: postingIndexAnswers), `search` answers undefined and the caller runs the
 * search in PostgreSQL.
 */
export class LiveSearchIndex {
  private live: LivePostingIndex | undefined;
  private snapshot = '';
  /** The change version every change before which is applied; undefined = catch up first. */
  private appliedVersion: number | undefined;
  private rebuilding = false;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;
  /** Lists another index shares, to be put in place of these at the next rebuild. */
  private adopting: Uint8Array | undefined;
  private readonly clauseMemo: ClauseMemo = new Map();
  private readonly catchUp = sharedRoundTrips(() => this.applyChanges());

  constructor(
    private readonly db: Kysely<any>,
    private readonly changes: ChangeVersion,
    private readonly options: LiveSearchIndexOptions = {},
  ) {}

  /** Starts the first build in the background (searches run in PostgreSQL until it is done). */
  start(): this {
    void this.rebuild();
    return this;
  }

  /**
   * Starts from, or moves to, the lists another index shares (its `share` bytes) instead of
   * building: decoded where they are, caught up, and put in place as a rebuild's would be. Bytes
   * that do not decode, or are of another catalogue, mean a build of its own.
   */
  adopt(bytes: Uint8Array): this {
    this.adopting = bytes;
    void this.rebuild();
    return this;
  }

  isReady(): boolean {
    return this.live !== undefined;
  }

  /** Sounds indexed and documents in the overlay (undefined before the first build). */
  stats(): { sounds: number; overlay: number } | undefined {
    return this.live && { sounds: this.live.size, overlay: this.live.overlaySize };
  }

  /**
   * The search's answer from the index, current with every change committed before the call, or
   * undefined when the index is not built yet or does not answer this search.
   */
  async search(
    request: SearchRequest | PreparedSearch,
    limits: SearchLimits = {},
  ): Promise<SearchResult | undefined> {
    if (!this.live) return undefined;
    const search = isPrepared(request) ? request : prepareSearch(request);
    if (!postingIndexAnswers(search)) return undefined;
    return limitedSearch(limits, async () => {
      await this.current();
      const live = this.live as LivePostingIndex;
      const result = await postingSearch(this.db, live.data, search, this.clauseMemo);
      if (!result) return undefined;
      const { approximate: _, ...answer } = result;
      return answer;
    });
  }

  /** Applies the changes committed before this call, unless the change version says there are none. */
  async current(): Promise<void> {
    const version = await this.changes.current();
    if (version !== undefined && version === this.appliedVersion) return;
    const live = this.live;
    await this.catchUp();
    // An index swapped in meanwhile may have read the changes before this version: not vouched for.
    if (version !== undefined && this.live === live) this.appliedVersion = version;
  }

  close(): void {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
  }

  private async applyChanges(): Promise<void> {
    const live = this.live;
    if (!live) return;
    const changed = await readSearchChanges(this.db, this.snapshot);
    await applyTo(this.db, live, changed.ids);
    if (this.live !== live) return; // rebuilt meanwhile: the new index caught up on its own
    this.snapshot = changed.snapshot;
    if (this.options.rebuilds !== false && live.overlaySize > this.rebuildAbove(live)) void this.rebuild();
  }

  private rebuildAbove(live: LivePostingIndex): number {
    const share = this.options.rebuildShare ?? 0.02;
    return Math.max(this.options.rebuildAtLeast ?? 5_000, share * live.data.columns.present.length);
  }

  /** The lists of the last snapshot, when there is a readable one. */
  private async fromSnapshot(): Promise<Lists | undefined> {
    const store = this.options.snapshots;
    if (!store) return undefined;
    try {
      const read = await store.read();
      if (!read) return undefined;
      const bytes = this.options.share && !isShared(read) ? inSharedMemory([read]) : read;
      const lists = await this.decoded(bytes, 'the snapshot');
      if (lists) this.options.logger?.info('search index: loaded from its snapshot');
      return lists;
    } catch (err) {
      this.options.logger?.warn({ err }, 'search index: snapshot unreadable; building from the catalogue');
      return undefined;
    }
  }

  /** The lists in `bytes` when they decode and are of this catalogue (`what` names them in the log). */
  private async decoded(bytes: Uint8Array, what: string): Promise<Lists | undefined> {
    let loaded: LoadedPostingIndex | undefined;
    try {
      loaded = decodePostingIndex(bytes);
    } catch (err) {
      this.options.logger?.warn({ err }, `search index: ${what} unreadable; building from the catalogue`);
      return undefined;
    }
    if (!loaded) {
      this.options.logger?.warn(`search index: ${what} is not of this format; building from the catalogue`);
      return undefined;
    }
    if (!(await catalogueSnapshot(this.db, loaded))) {
      this.options.logger?.warn(`search index: ${what} is of another catalogue; building from the catalogue`);
      return undefined;
    }
    return { loaded, shared: isShared(bytes) ? bytes : undefined };
  }

  /**
   * The lists read from the catalogue, written as the next start's snapshot (before any change is
   * applied). Shared, they are used from the snapshot's bytes, and the built arrays let go.
   */
  private async build(): Promise<Lists> {
    const logger = this.options.logger;
    let logged = 0;
    const built = await loadPostingIndexSince(this.db, (read, total) => {
      if (read - logged >= 250_000) {
        logged = read;
        logger?.info({ read, total }, 'search index: building');
      }
    });
    const parts = encodePostingIndex(built);
    const shared = this.options.share ? inSharedMemory(parts) : undefined;
    const store = this.options.snapshots;
    if (store)
      await store
        .write(shared ? [shared] : parts)
        .catch((err) => logger?.warn({ err }, 'search index: snapshot not written'));
    return { loaded: (shared && decodePostingIndex(shared)) || built, shared };
  }

  /**
   * Puts new lists in place of the current ones, caught up: another index's when one is being
   * adopted, else the snapshot's at the first start, else built afresh.
   */
  private async rebuild(): Promise<void> {
    if (this.rebuilding || this.closed) return;
    this.rebuilding = true;
    const logger = this.options.logger;
    const started = performance.now();
    try {
      const adopting = this.adopting;
      this.adopting = undefined;
      const { loaded, shared } =
        (adopting && (await this.decoded(adopting, "the other index's lists"))) ||
        (!this.live && (await this.fromSnapshot())) ||
        (await this.build());
      const live = new LivePostingIndex(loaded);
      let snapshot = loaded.snapshot;
      // Caught up twice: the first pass may take long after a long build; the second is short.
      for (let pass = 0; pass < 2; pass++) {
        const changed = await readSearchChanges(this.db, snapshot);
        await applyTo(this.db, live, changed.ids);
        snapshot = changed.snapshot;
      }
      if (this.closed) return;
      this.live = live;
      this.snapshot = snapshot;
      // Changes the old index had applied may be newer than this one's last read.
      this.appliedVersion = undefined;
      logger?.info(
        {
          sounds: live.size,
          seconds: Math.round((performance.now() - started) / 100) / 10,
          ...(adopting ? { adopted: true } : {}),
        },
        'search index: ready',
      );
      if (shared) this.options.share?.(shared);
    } catch (err) {
      logger?.error({ err }, 'search index: build failed; searches run in PostgreSQL until a retry succeeds');
      if (!this.closed) {
        this.retry = setTimeout(() => {
          this.retry = undefined;
          void this.rebuild();
        }, this.options.retryMs ?? 30_000);
        this.retry.unref();
      }
    } finally {
      this.rebuilding = false;
    }
    // Lists offered while this rebuild ran replace its own.
    if (this.adopting && !this.closed) void this.rebuild();
  }
}

/** Lists to put in place, and the shared bytes they are views of (when they are). */
interface Lists {
  loaded: LoadedPostingIndex;
  shared: Uint8Array | undefined;
}

function isShared(bytes: Uint8Array): boolean {
  return bytes.buffer instanceof SharedArrayBuffer;
}

/** Reads the current documents of the changed sounds and applies them, a batch at a time. */
async function applyTo(db: Kysely<any>, live: LivePostingIndex, ids: readonly number[]): Promise<void> {
  for (let i = 0; i < ids.length; i += CATCH_UP_BATCH) {
    const batch = ids.slice(i, i + CATCH_UP_BATCH);
    live.apply(batch, await readDocuments(db, { ids: batch }));
  }
}
