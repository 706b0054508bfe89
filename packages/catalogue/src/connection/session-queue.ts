import type { PGlite } from '@electric-sql/pglite';

/** Shape `PGLiteSocketHandler` expects of its query queue (the library does not export its own). */
export interface SocketQueryQueue {
  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number>;
  clearQueueForHandler(handlerId: number): void;
  clearTransactionIfNeeded(handlerId: number): Promise<void>;
}

interface Pending {
  handlerId: number;
  /** Runs against the backend; says how many bytes went out and whether the backend is now idle. */
  run: () => Promise<{ bytes: number; idle: boolean }>;
  resolve: (bytes: number) => void;
  reject: (error: unknown) => void;
}

const READY_FOR_QUERY = 0x5a; // 'Z'
const IDLE = 0x49; // 'I'
const SYNC = Uint8Array.of(0x53, 0, 0, 0, 4);
/** A simple-protocol Query message ('Q', length, text, NUL). */
function simpleQuery(text: string): Uint8Array {
  const body = Buffer.from(`${text}\0`, 'utf8');
  const message = Buffer.alloc(5 + body.length);
  message.write('Q', 0, 'latin1');
  message.writeUInt32BE(4 + body.length, 1);
  body.copy(message, 5);
  return message;
}
const ROLLBACK = simpleQuery('ROLLBACK');

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
    const run = async () => {
      const tail = new ResponseTail();
      await this.#db.execProtocolRawStream(message, {
        onRawData: (chunk) => {
          tail.push(chunk);
          onData(chunk);
        },
      });
      return { bytes: tail.bytes, idle: tail.endsIdle() };
    };
    return new Promise((resolve, reject) => {
      this.#pending.push({ handlerId, run, resolve, reject });
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

  /**
   * A connection went away while holding the backend: end its exchange and roll back its work.
   * Queued as that connection's own last step, so it runs inside its session and never between
   * another connection's messages.
   */
  clearTransactionIfNeeded(handlerId: number): Promise<void> {
    if (this.#owner !== handlerId) return Promise.resolve();
    // Raw protocol messages only: this runs inside `runExclusive`, and PGlite's `exec` takes the
    // same lock again, so `exec('ROLLBACK')` here waited for itself and every later statement of
    // every process waited behind it for ever (a worker killed inside a transaction).
    const run = async () => {
      await this.#db.execProtocolRaw(SYNC);
      if (this.#db.isInTransaction()) await this.#db.execProtocolRaw(ROLLBACK);
      return { bytes: 0, idle: true };
    };
    return new Promise<void>((resolve) => {
      this.#pending.unshift({ handlerId, run, resolve: () => resolve(), reject: () => resolve() });
      void this.#drain();
    });
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
        let idle = false;
        try {
          const outcome = await this.#db.runExclusive(next.run);
          idle = outcome.idle;
          next.resolve(outcome.bytes);
        } catch (error) {
          next.reject(error);
        }
        if (idle) this.#owner = null;
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
