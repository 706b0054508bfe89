import type { PreparedSearch, SearchResult } from '@earshot/catalogue';

/** What the text index's thread is started with (text-index.worker.ts). */
export interface TextIndexThreadData {
  /** The catalogue's PostgreSQL server (the embedded database cannot be opened by a second thread). */
  readonly databaseUrl: string;
  /** The data folder whose `search-index/` holds the snapshot; absent = no snapshot is read or written. */
  readonly snapshotDir?: string;
  readonly logLevel: string;
  /**
   * The lists another thread shares (its `base` message), to start from instead of reading the
   * snapshot or the catalogue. A thread started without them builds or reads them (and shares them
   * when `shares`).
   */
  readonly base?: Uint8Array;
  /**
   * Keep the lists in shared memory and send them (`base`) for other threads to adopt. Alone, a
   * thread keeps them in its own memory: shared, the columns it copies out stay in the shared bytes.
   */
  readonly shares?: boolean;
  /** When the sharing thread rebuilds its lists (LiveSearchIndexOptions; default theirs). */
  readonly rebuildShare?: number;
  readonly rebuildAtLeast?: number;
}

/** To the thread: a search, with the catalogue change version the caller has waited for. */
export interface TextIndexQuestion {
  readonly id: number;
  readonly search: PreparedSearch;
  /** undefined: the version cannot be told (the index catches up before answering). */
  readonly version: number | undefined;
  readonly budgetMs: number | undefined;
}

/** To the thread: new lists of the thread that shares them, to put in place of its own. */
export interface TextIndexAdopt {
  readonly kind: 'adopt';
  readonly bytes: Uint8Array;
}

/** To the thread. */
export type TextIndexRequest = TextIndexQuestion | TextIndexAdopt | 'close';

/** From the thread. */
export type TextIndexMessage =
  | { readonly kind: 'answer'; readonly id: number; readonly result: SearchResult | undefined }
  | { readonly kind: 'failed'; readonly id: number; readonly message: string }
  | { readonly kind: 'ready' }
  /** The lists in shared memory, each time the sharing thread has new ones in place. */
  | { readonly kind: 'base'; readonly bytes: Uint8Array }
  /** A log line of the thread's logger (pino's JSON), for the process's own logger. */
  | { readonly kind: 'log'; readonly line: string };
