import { Worker } from 'node:worker_threads';

/**
 * The md5 and CRC-32 of a file on disk, computed on a worker thread beside the event loop: the
 * duplicate check (same-file-check.ts) hashes a file only when an original of its size exists,
 * and then the request waits for it, so the hash (native md5, ~1.6 ms per MB) must not hold up
 * the other requests. One thread per process serves every file, one after another; memory stays
 * one buffer whatever the file size.
 *
 * The thread waits for work on its own event loop, so an idle thread (unref'd) never keeps a
 * process alive: a CLI command that hashed a file still exits when its work is done.
 */
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const { crc32 } = require('node:zlib');
const buffer = Buffer.allocUnsafeSlow(workerData.readBytes);
parentPort.on('message', ({ id, file, size }) => {
  let fd;
  try {
    fd = fs.openSync(file, 'r');
    const hash = createHash('md5');
    let crc = 0;
    for (let position = 0; position < size; ) {
      const n = fs.readSync(fd, buffer, 0, Math.min(buffer.length, size - position), position);
      if (n === 0) throw new Error('the file is shorter than its size');
      const bytes = n === buffer.length ? buffer : buffer.subarray(0, n);
      hash.update(bytes);
      crc = crc32(bytes, crc);
      position += n;
    }
    parentPort.postMessage({ id, md5: hash.digest('hex'), crc32: crc >>> 0 });
  } catch (err) {
    parentPort.postMessage({ id, error: String((err && err.message) || err) });
  } finally {
    if (fd !== undefined) try { fs.closeSync(fd); } catch {}
  }
});
`;

/** The thread's read size. */
const READ_BYTES = 1 << 20;

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
  // No inherited flags: the source is plain CommonJS, which `--input-type=module` would break.
  const worker = new Worker(THREAD_SOURCE, {
    eval: true,
    execArgv: [],
    workerData: { readBytes: READ_BYTES },
  });
  worker.unref();
  worker.on('message', (m: Reply) => {
    const job = waiting.get(m.id);
    if (!job) return;
    waiting.delete(m.id);
    if (waiting.size === 0) worker.unref();
    if (m.error !== undefined) job.reject(new Error(`hashing the upload failed: ${m.error}`));
    else job.resolve({ md5: m.md5 as string, crc32: m.crc32 as number });
  });
  const fail = (err: Error) => {
    // A broken thread is replaced on the next file; the jobs it held cannot finish.
    if (thread === worker) thread = undefined;
    for (const job of waiting.values()) job.reject(err);
    waiting.clear();
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`hashing the upload failed: its thread exited (${code})`)));
  thread = worker;
  return worker;
}

/** The digests of a whole file already on disk (`size` bytes), read on the hashing thread. */
export function digestFile(file: string, size: number): Promise<Digests> {
  const worker = digestThread();
  const id = nextId++;
  return new Promise<Digests>((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    // A job in flight keeps the process alive until its answer comes back.
    worker.ref();
    worker.postMessage({ id, file, size });
  });
}
