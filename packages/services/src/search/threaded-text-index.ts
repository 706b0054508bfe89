import os from 'node:os';
import type { Worker } from 'node:worker_threads';
import {
  type ChangeVersion,
  type PreparedSearch,
  postingIndexAnswers,
  type SearchLimits,
  type SearchResult,
} from '@earshot/catalogue';
import type { Logger } from '@earshot/common';
import { createModuleWorker } from '@earshot/common/module-worker';
import type { TextIndex } from './search-engine.ts';
import type {
  TextIndexAdopt,
  TextIndexMessage,
  TextIndexQuestion,
  TextIndexThreadData,
} from './text-index-protocol.ts';

type LogMethod = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

export interface ThreadedTextIndexOptions {
  /** The catalogue's PostgreSQL server. */
  databaseUrl: string;
  /** The data folder whose snapshot the index starts from and writes; absent = none. */
  snapshotDir?: string;
  logger: Logger;
  /** Wait before a thread that stopped is started again (default 5 s). */
  restartMs?: number;
  /**
   * Threads searching the index (default 2, at most the cores): a search waits only for the
   * searches ahead of it in its own thread. The lists are held once, in shared memory; each thread
   * costs its own per-sound columns and the maps of the lists' names.
   */
  threads?: number;
  /** When the lists are rebuilt to empty the overlay of changed documents (LiveSearchIndexOptions). */
  rebuildShare?: number;
  rebuildAtLeast?: number;
}

/**
 * The posting index (LiveSearchIndex) in a worker thread of its own, for a catalogue on a
 * PostgreSQL server. A search over a few hundred thousand matches takes tens of milliseconds of
 * CPU; on the event loop every request behind it waited that long, a page from the cache as much
 * as another search. Here only the searches wait for each other. The thread builds the index (or
 * reads its snapshot) and keeps it current itself; each search is sent with the change version the
 * caller has waited for, so an answer sees every change committed before the request, as before.
 * Until the thread is ready, and when it fails, searches answer undefined (PostgreSQL answers them).
 */
export class ThreadedTextIndex implements TextIndex {
  private readonly threads: IndexThread[];
  private started = false;
  /** The lists the first thread shares, in shared memory: the others' own come from here. */
  private base: Uint8Array | undefined;

  constructor(
    private readonly changes: ChangeVersion,
    options: ThreadedTextIndexOptions,
  ) {
    const count = Math.max(1, Math.min(options.threads ?? 2, os.availableParallelism()));
    // The first thread builds (or reads the snapshot) and shares its lists; the others start once
    // it is ready, from those lists, and take each rebuild of them: one copy of the lists for all.
    const followers = Array.from(
      { length: count - 1 },
      () => new IndexThread(options, { base: () => this.base }),
    );
    const leader = new IndexThread(options, {
      shares: followers.length > 0,
      onReady: () => {
        for (const thread of followers) thread.start();
      },
      onBase: (bytes) => {
        this.base = bytes;
        for (const thread of followers) thread.adopt(bytes);
      },
    });
    this.threads = [leader, ...followers];
  }

  start(): this {
    if (!this.started) this.threads[0].start();
    this.started = true;
    return this;
  }

  isReady(): boolean {
    return this.threads.some((t) => t.isReady());
  }

  /** Threads answering searches now. */
  get readyThreads(): number {
    return this.threads.filter((t) => t.isReady()).length;
  }

  /** Every thread answers searches: none is still reading the catalogue to start. */
  allReady(): boolean {
    return this.threads.every((t) => t.isReady());
  }

  async search(search: PreparedSearch, limits: SearchLimits = {}): Promise<SearchResult | undefined> {
    if (!this.isReady() || !postingIndexAnswers(search)) return undefined;
    const version = await this.changes.current();
    // The ready thread with the fewest searches waiting.
    let best: IndexThread | undefined;
    for (const thread of this.threads)
      if (thread.isReady() && (!best || thread.pending < best.pending)) best = thread;
    return best ? best.ask(search, version, limits.budgetMs) : undefined;
  }

  async close(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.close()));
  }
}

/**
 * What a thread is to the others: the one that shares its lists (told when it is ready and of each
 * new lists), or one that starts from the shared lists (`base`).
 */
interface IndexThreadRole {
  shares?: boolean;
  onReady?: () => void;
  onBase?: (bytes: Uint8Array) => void;
  base?: () => Uint8Array | undefined;
}

/** One thread holding the index. */
class IndexThread {
  private worker: Worker | undefined;
  private ready = false;
  private closed = false;
  private nextId = 1;
  private readonly waiting = new Map<number, (result: SearchResult | undefined) => void>();
  private restart: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: ThreadedTextIndexOptions,
    private readonly role: IndexThreadRole,
  ) {}

  start(): this {
    if (this.closed || this.worker) return this;
    const data: TextIndexThreadData = {
      databaseUrl: this.options.databaseUrl,
      snapshotDir: this.options.snapshotDir,
      logLevel: this.options.logger.level,
      base: this.role.base?.(),
      shares: this.role.shares,
      rebuildShare: this.options.rebuildShare,
      rebuildAtLeast: this.options.rebuildAtLeast,
    };
    const worker = createModuleWorker(new URL('./text-index.worker.ts', import.meta.url), {
      workerData: data,
    });
    worker.on('message', (message: TextIndexMessage) => this.received(message));
    worker.on('error', (err) => this.options.logger.error({ err }, 'search index thread failed'));
    worker.on('exit', () => this.stopped(worker));
    // Idle, the thread does not keep the process alive; a search under way does (see search).
    worker.unref();
    this.worker = worker;
    return this;
  }

  isReady(): boolean {
    return this.ready;
  }

  /** Searches sent and not answered yet. */
  get pending(): number {
    return this.waiting.size;
  }

  ask(
    search: PreparedSearch,
    version: number | undefined,
    budgetMs: number | undefined,
  ): Promise<SearchResult | undefined> {
    const worker = this.worker;
    if (!this.ready || !worker) return Promise.resolve(undefined);
    const id = this.nextId++;
    const question: TextIndexQuestion = { id, search, version, budgetMs };
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      if (this.waiting.size === 1) worker.ref();
      try {
        worker.postMessage(question);
      } catch (err) {
        // A search the thread cannot be sent (not cloneable) is PostgreSQL's to answer.
        this.options.logger.warn({ err }, 'search index thread: search not sent');
        this.answer(id, undefined);
      }
    });
  }

  /** New lists of the sharing thread, for this one to put in place of its own. */
  adopt(bytes: Uint8Array): void {
    const request: TextIndexAdopt = { kind: 'adopt', bytes };
    this.worker?.postMessage(request);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.restart) clearTimeout(this.restart);
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage('close');
    const timer = setTimeout(() => void worker.terminate(), 5_000);
    await exited;
    clearTimeout(timer);
  }

  private received(message: TextIndexMessage): void {
    switch (message.kind) {
      case 'ready':
        this.ready = true;
        this.role.onReady?.();
        return;
      case 'base':
        this.role.onBase?.(message.bytes);
        return;
      case 'log':
        this.log(message.line);
        return;
      case 'answer':
        this.answer(message.id, message.result);
        return;
      case 'failed':
        // The search runs again in PostgreSQL, which reports what is wrong in its own terms.
        this.options.logger.warn({ reason: message.message }, 'search index thread: search failed');
        this.answer(message.id, undefined);
        return;
    }
  }

  private answer(id: number, result: SearchResult | undefined): void {
    const resolve = this.waiting.get(id);
    if (!resolve) return;
    this.waiting.delete(id);
    if (this.waiting.size === 0) this.worker?.unref();
    resolve(result);
  }

  /** A line of the thread's logger, passed to this process's logger at its level. */
  private log(line: string): void {
    try {
      const { level, msg, time: _t, pid: _p, name: _n, hostname: _h, ...fields } = JSON.parse(line);
      const logger = this.options.logger;
      logger[(logger.levels.labels[level] ?? 'info') as LogMethod](fields, msg);
    } catch {
      this.options.logger.info(line);
    }
  }

  /** The thread ended: its pending searches go to PostgreSQL, and a new thread starts unless closing. */
  private stopped(worker: Worker): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    this.ready = false;
    for (const resolve of this.waiting.values()) resolve(undefined);
    this.waiting.clear();
    if (this.closed) return;
    this.options.logger.warn('search index thread stopped; searches run in PostgreSQL until it is back');
    this.restart = setTimeout(() => {
      this.restart = undefined;
      this.start();
    }, this.options.restartMs ?? 5_000);
    this.restart.unref();
  }
}
