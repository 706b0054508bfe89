import { Worker } from 'node:worker_threads';

/**
 * md5 of a stream computed on a worker thread, so that hashing an upload (the largest CPU cost of
 * receiving one) runs beside the event loop that parses and writes it. Chunks are copied and
 * handed over (transferred, not cloned again); at most MAX_IN_FLIGHT bytes wait in the thread, so
 * memory stays bounded whatever the file size. One thread per process serves every upload.
 */

/** Plain JavaScript (no TypeScript loader needed in the thread): one hash per job id. */
const THREAD_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const hashes = new Map();
parentPort.on('message', (m) => {
  if (m.chunk) {
    let h = hashes.get(m.id);
    if (!h) { h = createHash('md5'); hashes.set(m.id, h); }
    h.update(new Uint8Array(m.chunk));
    parentPort.postMessage({ id: m.id, done: m.chunk.byteLength });
  } else if (m.end) {
    const h = hashes.get(m.id) || createHash('md5');
    hashes.delete(m.id);
    parentPort.postMessage({ id: m.id, md5: h.digest('hex') });
  } else if (m.drop) {
    hashes.delete(m.id);
  }
});
`;

const MAX_IN_FLIGHT = 4 * 1024 * 1024;

interface Job {
  inFlight: number;
  drained?: () => void;
  digested?: (md5: string) => void;
}

let thread: Worker | undefined;
const jobs = new Map<number, Job>();
let nextId = 1;

function hashThread(): Worker {
  if (thread) return thread;
  const worker = new Worker(THREAD_SOURCE, { eval: true });
  worker.unref();
  worker.on('message', (m: { id: number; done?: number; md5?: string }) => {
    const job = jobs.get(m.id);
    if (!job) return;
    if (m.done !== undefined) {
      job.inFlight -= m.done;
      if (job.inFlight <= MAX_IN_FLIGHT / 2 && job.drained) {
        const resume = job.drained;
        job.drained = undefined;
        resume();
      }
    }
    if (m.md5 !== undefined) {
      jobs.delete(m.id);
      job.digested?.(m.md5);
    }
  });
  worker.on('error', () => {
    // A broken thread is replaced on the next upload; the jobs it held cannot finish.
    if (thread === worker) thread = undefined;
  });
  thread = worker;
  return worker;
}

export class Md5Thread {
  private readonly id = nextId++;
  private readonly job: Job = { inFlight: 0 };
  private readonly worker = hashThread();

  constructor() {
    jobs.set(this.id, this.job);
  }

  /** Hands a chunk to the thread; resolves at once unless too much is already waiting there. */
  update(chunk: Buffer): Promise<void> | undefined {
    const copy = new Uint8Array(chunk).buffer; // a fresh ArrayBuffer holding only this chunk
    this.job.inFlight += copy.byteLength;
    this.worker.postMessage({ id: this.id, chunk: copy }, [copy]);
    if (this.job.inFlight <= MAX_IN_FLIGHT) return undefined;
    return new Promise((resolve) => {
      this.job.drained = resolve;
    });
  }

  digest(): Promise<string> {
    return new Promise((resolve) => {
      this.job.digested = resolve;
      this.worker.postMessage({ id: this.id, end: true });
    });
  }

  /** Forgets an unfinished hash (the upload failed). */
  drop(): void {
    jobs.delete(this.id);
    this.worker.postMessage({ id: this.id, drop: true });
  }
}
