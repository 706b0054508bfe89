import type { PGlite } from '@electric-sql/pglite';

/** Shape `PGLiteSocketHandler` expects of its query queue (the library does not export its own). */
export interface SocketQueryQueue {
  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number>;
  clearQueueForHandler(handlerId: number): void;
  clearTransactionIfNeeded(handlerId: number): Promise<void>;
}

interface Pending {
  handlerId: number;
  message: Uint8Array;
  onData: (data: Uint8Array) => void;
  resolve: (bytes: number) => void;
  reject: (error: unknown) => void;
}

const READY_FOR_QUERY = 0x5a; // 'Z'
const IDLE = 0x49; // 'I'
const SYNC = Uint8Array.of(0x53, 0, 0, 0, 4);

/**
 * Gives one socket connection the single PGlite backend for a whole protocol exchange.
 *
 * PGlite has one backend. The library's own queue interleaves connections message by message, so
 * one client's Parse can replace another's unnamed statement between its Parse and Bind (we saw
 * "unnamed prepared statement does not exist" under load). This queue hands the backend to one
 * connection until the backend reports ReadyForQuery with status idle — the end of a simple query,
 * an extended-protocol Sync, or a whole transaction — and only then lets the next connection in.
 */
export class SessionQueue implements SocketQueryQueue {
  readonly #db: PGlite;
  #pending: Pending[] = [];
  #owner: number | null = null;
  #draining = false;

  constructor(db: PGlite) {
    this.#db = db;
  }

  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ handlerId, message, onData, resolve, reject });
      void this.#drain();
    });
  }

  clearQueueForHandler(handlerId: number): void {
    this.#pending = this.#pending.filter((p) => {
      if (p.handlerId !== handlerId) return true;
      p.reject(new Error('connection closed'));
      return false;
    });
  }

  /** A connection went away while holding the backend: finish its exchange and roll back its work. */
  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    if (this.#owner !== handlerId) return;
    await this.#db.runExclusive(async () => {
      await this.#db.execProtocolRaw(SYNC);
      if (this.#db.isInTransaction()) await this.#db.exec('ROLLBACK');
    });
    this.#owner = null;
    void this.#drain();
  }

  async #drain(): Promise<void> {
    if (this.#draining) return;
    this.#draining = true;
    try {
      for (;;) {
        const index = this.#owner === null ? 0 : this.#pending.findIndex((p) => p.handlerId === this.#owner);
        if (index < 0 || index >= this.#pending.length) return;
        const [next] = this.#pending.splice(index, 1);
        this.#owner = next.handlerId;
        const tail = new ResponseTail();
        try {
          await this.#db.runExclusive(() =>
            this.#db.execProtocolRawStream(next.message, {
              onRawData: (chunk) => {
                tail.push(chunk);
                next.onData(chunk);
              },
            }),
          );
          next.resolve(tail.bytes);
        } catch (error) {
          next.reject(error);
        }
        if (tail.endsIdle()) this.#owner = null;
      }
    } finally {
      this.#draining = false;
    }
  }
}

/** Remembers the last six bytes of a response: enough to see a trailing ReadyForQuery message. */
class ResponseTail {
  bytes = 0;
  #last = new Uint8Array(0);

  push(chunk: Uint8Array): void {
    this.bytes += chunk.length;
    const joined = new Uint8Array(this.#last.length + chunk.length);
    joined.set(this.#last);
    joined.set(chunk, this.#last.length);
    this.#last = joined.slice(-6);
  }

  endsIdle(): boolean {
    const t = this.#last;
    return t.length === 6 && t[0] === READY_FOR_QUERY && t[4] === 5 && t[5] === IDLE;
  }
}
