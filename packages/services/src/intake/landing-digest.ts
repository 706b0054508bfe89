import { Worker } from 'node:worker_threads';

/**
 * The md5 and CRC-32 of a file computed on a worker thread that reads the file as it lands on
 * disk, behind the writes: the thread receiving the upload hands over no bytes (no copy, no buffer
 * per chunk, no message per chunk; one message per MiB written), and the thread reads the fresh
 * pages back from the page cache into one buffer of its own, hashing beside the event loop that
 * parses and writes. The hash is what costs most in receiving an upload (native md5, ~1.6 ms per
 * MB); copying chunks to a thread (as before) cost a copy, a message and garbage per chunk, and
 * hashing on the event loop puts the md5 in series with the transfer. One thread per process serves
 * every upload; memory stays one buffer whatever the file size.
 */

/** Plain JavaScript (no TypeScript loader needed in the thread): one job per upload. */
const THREAD_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const { crc32 } = require('node:zlib');
const buffer = Buffer.allocUnsafeSlow(1 << 20);
const jobs = new Map();
function catchUp(job, upTo) {
  while (job.position < upTo) {
    const n = fs.readSync(job.fd, buffer, 0, Math.min(buffer.length, upTo - job.position), job.position);
    if (n === 0) throw new Error('the file is shorter than what was written to it');
    const bytes = n === buffer.length ? buffer : buffer.subarray(0, n);
    job.hash.update(bytes);
    job.crc = crc32(bytes, job.crc);
    job.position += n;
  }
}
parentPort.on('message', (m) => {
  let job = jobs.get(m.id);
  try {
    if (m.drop) {
      if (job) fs.closeSync(job.fd);
      jobs.delete(m.id);
      return;
    }
    if (!job) {
      job = { fd: fs.openSync(m.file, 'r'), position: 0, hash: createHash('md5'), crc: 0 };
      jobs.set(m.id, job);
    }
    catchUp(job, m.upTo);
    if (m.end) {
      fs.closeSync(job.fd);
      jobs.delete(m.id);
      parentPort.postMessage({ id: m.id, md5: job.hash.digest('hex'), crc32: job.crc >>> 0 });
    }
  } catch (err) {
    if (job) { try { fs.closeSync(job.fd); } catch {} }
    jobs.delete(m.id);
    parentPort.postMessage({ id: m.id, error: String(err && err.message || err) });
  }
});
`;

/** How far behind the writes the thread is told to catch up (one message per this many bytes). */
const STEP_BYTES = 1 << 20;

export interface Digests {
  md5: string;
  crc32: number;
}

interface Reply {
  id: number;
  md5?: string;
  crc32?: number;
  error?: string;
}

let thread: Worker | undefined;
const waiting = new Map<number, { resolve: (d: Digests) => void; reject: (err: Error) => void }>();
let nextId = 1;

function digestThread(): Worker {
  if (thread) return thread;
  const worker = new Worker(THREAD_SOURCE, { eval: true });
  worker.unref();
  worker.on('message', (m: Reply) => {
    const job = waiting.get(m.id);
    if (!job) return;
    waiting.delete(m.id);
    if (m.error !== undefined) job.reject(new Error(`hashing the upload failed: ${m.error}`));
    else job.resolve({ md5: m.md5 as string, crc32: m.crc32 as number });
  });
  worker.on('error', (err) => {
    // A broken thread is replaced on the next upload; the jobs it held cannot finish.
    if (thread === worker) thread = undefined;
    for (const job of waiting.values()) job.reject(err);
    waiting.clear();
  });
  thread = worker;
  return worker;
}

/** The digests of one file being written: `written` as bytes land, then `finish` or `drop`. */
export class LandingDigest {
  private readonly id = nextId++;
  private readonly worker = digestThread();
  private told = 0;
  private started = false;

  constructor(private readonly file: string) {}

  /** `bytes` of the file are on disk (its writes completed): the thread may read that far. */
  written(bytes: number): void {
    if (bytes - this.told < STEP_BYTES) return;
    this.told = bytes;
    this.post({ upTo: bytes });
  }

  /** The file is whole at `size` bytes: its digests once the thread has read it all. */
  finish(size: number): Promise<Digests> {
    if (thread !== this.worker) return Promise.reject(new Error('the hashing thread stopped'));
    const result = new Promise<Digests>((resolve, reject) => waiting.set(this.id, { resolve, reject }));
    this.post({ upTo: size, end: true });
    return result;
  }

  /** Forgets an unfinished file (the upload failed). */
  drop(): void {
    waiting.delete(this.id);
    if (this.started) this.worker.postMessage({ id: this.id, drop: true });
  }

  private post(message: { upTo: number; end?: boolean }): void {
    this.worker.postMessage({ id: this.id, ...(this.started ? {} : { file: this.file }), ...message });
    this.started = true;
  }
}
