import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { EarshotError } from '@earshot/common';

/** A file that arrived whole: where it sits under the data folder and its size (not hashed: see SoundIntake). */
export interface ReceivedFile {
  /** Absolute path of the temporary file (under DATA_DIR/uploads/incoming). */
  path: string;
  /** What `onPrefix` started on the file's first bytes while the rest streamed in (the early probe). */
  early?: Promise<unknown>;
  /** The name the client gave it (no folders). */
  filename: string;
  size: number;
}

/** What the file stream may hold while a write is under way (a few dozen socket chunks). */
const WRITE_BUFFER_BYTES = 1024 * 1024;

export class UploadTooLargeError extends EarshotError {
  constructor(maxBytes: number) {
    super(
      `The audio file is larger than the ${formatBytes(maxBytes)} an upload may hold.`,
      'upload_too_large',
      413,
      { audiofile: [`The audio file is larger than ${formatBytes(maxBytes)}.`] },
    );
  }
}

/**
 * Streams an upload to a temporary file in the data folder (so that the sound's original is later
 * one rename away), counting it on the way: memory stays a few chunks whatever the size. It is not
 * hashed here: the md5 is needed before answering only when an original of the same size exists
 * (SoundIntake), and the pipeline's probe takes it (with the CRC-32) otherwise. Anything that stops
 * the stream (size limit, client gone, disk error) removes the partial file before the error goes on.
 *
 * A process that dies mid-upload cannot remove its file, and several API processes, on several
 * hosts, may share the data folder: no process can tell whether another's is alive. So each
 * partial file is held on a lease, its modification time: the bytes arriving renew it, and while a
 * received file waits for its request to finish with it the receiver renews it itself. A partial
 * file not renewed for `leaseMs` has no living owner, and whichever process sweeps next removes it
 * (every API process sweeps at start and every half lease). A live upload that stalls longer than
 * the connection's idle timeout is cut by the server, so the lease is twice that timeout. (Hosts
 * sharing the folder need clocks within a fraction of the lease of each other.)
 */
export class UploadReceiver {
  readonly incomingDir: string;
  readonly leaseMs: number;
  /** The files of this process's requests still in the incoming folder: their leases are renewed. */
  private readonly held = new Set<string>();
  private renewTimer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly dataDir: string,
    readonly maxBytes: number,
    options: { leaseMs?: number } = {},
  ) {
    this.incomingDir = path.join(dataDir, 'uploads', 'incoming');
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  }

  /**
   * `onPrefix` is called once the first `prefixBytes` are on disk, while the rest still streams
   * in: work that needs only a file's head (probing it) then overlaps the transfer.
   */
  async receive(
    source: Readable,
    clientName: string,
    options: { prefixBytes?: number; onPrefix?: (file: string) => Promise<unknown> } = {},
  ): Promise<ReceivedFile> {
    await fs.mkdir(this.incomingDir, { recursive: true });
    const file = path.join(this.incomingDir, `${randomBytes(12).toString('hex')}.partial`);
    this.hold(file);
    let size = 0;
    const maxBytes = this.maxBytes;
    // Chunks that arrive while a write is under way are written together (one writev) when it
    // ends: with the default 16 KiB buffer every socket chunk was a write of its own, and the
    // thread-pool round trips cost more CPU than the copy into the page cache itself.
    const sink = createWriteStream(file, { highWaterMark: WRITE_BUFFER_BYTES });
    const prefixBytes = options.prefixBytes ?? Number.POSITIVE_INFINITY;
    let early: Promise<unknown> | undefined;
    // Each chunk as the parser hands it over (a view of the socket's buffer) is counted and
    // written, never copied or joined: joining (what reading a stream chunk by chunk does) and
    // copying tripled the bytes allocated outside the heap, and with them the full garbage
    // collections external memory triggers in a process as large as the API's.
    source.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        source.destroy(new UploadTooLargeError(maxBytes));
        return;
      }
      if (!early && options.onPrefix && sink.bytesWritten >= prefixBytes) {
        // Settles as a value or an error, never unhandled: the caller decides what it means.
        early = options.onPrefix(file).catch((err: unknown) => err);
      }
    });
    try {
      await pipeline(source, sink);
    } catch (err) {
      await early;
      await fs.rm(file, { force: true });
      this.held.delete(file);
      throw err;
    }
    return { path: file, filename: safeFilename(clientName), size, early };
  }

  /** Removes a received file that will not become a sound or a pending upload. */
  async discard(file: ReceivedFile): Promise<void> {
    await fs.rm(file.path, { force: true });
    this.held.delete(file.path);
  }

  /**
   * Removes the partial files whose lease ran out (`olderThanMs` without being renewed): their
   * owner died mid-upload. This process's own files are never taken.
   */
  async sweep(olderThanMs = this.leaseMs): Promise<number> {
    const names = await fs.readdir(this.incomingDir).catch(() => [] as string[]);
    let removed = 0;
    for (const name of names) {
      const file = path.join(this.incomingDir, name);
      if (!name.endsWith('.partial') || this.held.has(file)) continue;
      const stat = await fs.stat(file).catch(() => undefined);
      if (stat && Date.now() - stat.mtimeMs > olderThanMs) {
        await fs.rm(file, { force: true });
        removed++;
      }
    }
    return removed;
  }

  /** Sweeps now and every half lease, until `stop` (the timers never keep the process alive). */
  startSweeping(onError: (err: unknown) => void = () => {}): void {
    if (this.sweepTimer) return;
    const tick = () => void this.sweep().catch(onError);
    tick();
    this.sweepTimer = setInterval(tick, this.leaseMs / 2);
    this.sweepTimer.unref();
  }

  stop(): void {
    clearInterval(this.sweepTimer);
    clearInterval(this.renewTimer);
    this.sweepTimer = undefined;
    this.renewTimer = undefined;
  }

  /**
   * Holds a file on its lease until it leaves the incoming folder: renewed every quarter lease (a
   * file moved away or removed is let go at its next renewal).
   */
  private hold(file: string): void {
    this.held.add(file);
    if (this.renewTimer) return;
    this.renewTimer = setInterval(() => void this.renew(), this.leaseMs / 4);
    this.renewTimer.unref();
  }

  private async renew(): Promise<void> {
    const now = new Date();
    for (const file of this.held) {
      try {
        await fs.utimes(file, now, now);
      } catch {
        this.held.delete(file);
      }
    }
    if (this.held.size === 0) {
      clearInterval(this.renewTimer);
      this.renewTimer = undefined;
    }
  }
}

/** Twice the API's default idle timeout (IDLE_TIMEOUT_MS): see UploadReceiver. */
const DEFAULT_LEASE_MS = 120_000;

/** The client's file name without any folder part or control characters (browsers send C:\…\a.wav). */
export function safeFilename(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return clean.slice(-200) || 'upload';
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3 && bytes % 1024 ** 3 === 0) return `${bytes / 1024 ** 3} GB`;
  if (bytes >= 1024 ** 2) return `${Math.round(bytes / 1024 ** 2)} MB`;
  return `${bytes} bytes`;
}
