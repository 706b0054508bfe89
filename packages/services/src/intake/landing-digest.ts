import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';

/**
 * The md5 and CRC-32 of a file computed on a worker thread, beside the event loop: the duplicate
 * check (same-file-check.ts) hashes a file only when an original of its size exists, and then the
 * request waits for it, so the hash (native md5, ~1.6 ms per MB) must not hold up the other
 * requests. The thread can also read a file as it lands on disk, behind the writes (`written`):
 * the upload path did that while every upload was hashed, and no longer needs it. One thread per
 * process serves every file; memory stays one buffer whatever the file size.
 */

/**
 * Plain JavaScript (no TypeScript loader needed in the thread). Each job shares a small array with
 * the event loop: bytes written so far, and the final size (-1 while the upload runs, -2 dropped).
 * The event loop only stores numbers there and rings a shared doorbell; the thread sleeps on the
 * doorbell (Atomics.wait, a futex) and takes new jobs from its port without a message event, so a
 * MiB written costs the receiving side a store and at most one wake-up, not a message.
 */
const THREAD_SOURCE = `
const { parentPort, workerData, receiveMessageOnPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const { crc32 } = require('node:zlib');
const { port, ring: ringBuffer, readBytes } = workerData;
const ring = new Int32Array(ringBuffer);
const buffer = Buffer.allocUnsafeSlow(readBytes);
const jobs = new Map();
function close(job) {
  jobs.delete(job.id);
  try { fs.closeSync(job.fd); } catch {}
}
function advance(job) {
  const final = Number(Atomics.load(job.shared, 1));
  if (final === -2) return close(job);
  const upTo = final >= 0 ? final : Number(Atomics.load(job.shared, 0));
  while (job.position < upTo) {
    const n = fs.readSync(job.fd, buffer, 0, Math.min(buffer.length, upTo - job.position), job.position);
    if (n === 0) throw new Error('the file is shorter than what was written to it');
    const bytes = n === buffer.length ? buffer : buffer.subarray(0, n);
    job.hash.update(bytes);
    job.crc = crc32(bytes, job.crc);
    job.position += n;
  }
  if (final >= 0) {
    close(job);
    parentPort.postMessage({ id: job.id, md5: job.hash.digest('hex'), crc32: job.crc >>> 0 });
  }
}
for (;;) {
  const seen = Atomics.load(ring, 0);
  for (let m; (m = receiveMessageOnPort(port)); ) {
    const { id, file, shared } = m.message;
    try {
      jobs.set(id, { id, fd: fs.openSync(file, 'r'), shared: new BigInt64Array(shared), position: 0, hash: createHash('md5'), crc: 0 });
    } catch (err) {
      parentPort.postMessage({ id, error: String((err && err.message) || err) });
    }
  }
  for (const job of jobs.values()) {
    try {
      advance(job);
    } catch (err) {
      close(job);
      parentPort.postMessage({ id: job.id, error: String((err && err.message) || err) });
    }
  }
  // The timeout only bounds a wait nobody rings for (a lost wake-up cannot happen: every change
  // rings after it is stored, and the doorbell's value is read before the work above).
  Atomics.wait(ring, 0, seen, 1000);
}
`;

/** The thread's read size, and how far ahead of its last ring the writes go before the next. */
const READ_BYTES = 1 << 20;
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

interface DigestThread {
  worker: Worker;
  port: MessagePort;
  ring: Int32Array;
}

let thread: DigestThread | undefined;
const waiting = new Map<number, { resolve: (d: Digests) => void; reject: (err: Error) => void }>();
let nextId = 1;

function digestThread(): DigestThread {
  if (thread) return thread;
  const { port1, port2 } = new MessageChannel();
  const ring = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(THREAD_SOURCE, {
    eval: true,
    workerData: { port: port2, ring: ring.buffer, readBytes: READ_BYTES },
    transferList: [port2],
  });
  worker.unref();
  port1.unref();
  worker.on('message', (m: Reply) => {
    const job = waiting.get(m.id);
    if (!job) return;
    waiting.delete(m.id);
    if (m.error !== undefined) job.reject(new Error(`hashing the upload failed: ${m.error}`));
    else job.resolve({ md5: m.md5 as string, crc32: m.crc32 as number });
  });
  const current: DigestThread = { worker, port: port1, ring };
  worker.on('error', (err) => {
    // A broken thread is replaced on the next upload; the jobs it held cannot finish.
    if (thread === current) thread = undefined;
    for (const job of waiting.values()) job.reject(err);
    waiting.clear();
  });
  thread = current;
  return current;
}

/** The digests of one file being written: `written` as bytes land, then `finish` or `drop`. */
export class LandingDigest {
  private readonly id = nextId++;
  private readonly thread = digestThread();
  /** [bytes written, final size]: read by the thread (see THREAD_SOURCE). */
  private readonly shared = new BigInt64Array(new SharedArrayBuffer(16));
  private rung = 0;
  private started = false;

  constructor(private readonly file: string) {
    this.shared[1] = -1n;
  }

  /** `bytes` of the file are on disk (its writes completed): the thread may read that far. */
  written(bytes: number): void {
    if (bytes - this.rung < STEP_BYTES) return;
    Atomics.store(this.shared, 0, BigInt(bytes));
    this.rung = bytes;
    this.start();
    this.ring();
  }

  /** The file is whole at `size` bytes: its digests once the thread has read it all. */
  finish(size: number): Promise<Digests> {
    if (thread !== this.thread) return Promise.reject(new Error('the hashing thread stopped'));
    const result = new Promise<Digests>((resolve, reject) => waiting.set(this.id, { resolve, reject }));
    Atomics.store(this.shared, 1, BigInt(size));
    this.start();
    this.ring();
    return result;
  }

  /** Forgets an unfinished file (the upload failed). */
  drop(): void {
    waiting.delete(this.id);
    if (!this.started) return;
    Atomics.store(this.shared, 1, -2n);
    this.ring();
  }

  private start(): void {
    if (this.started) return;
    this.started = true;
    this.thread.port.postMessage({ id: this.id, file: this.file, shared: this.shared.buffer });
  }

  private ring(): void {
    Atomics.add(this.thread.ring, 0, 1);
    Atomics.notify(this.thread.ring, 0);
  }
}

/** The digests of a whole file already on disk (`size` bytes), read on the hashing thread. */
export function digestFile(file: string, size: number): Promise<Digests> {
  return new LandingDigest(file).finish(size);
}
