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
 */
export class UploadReceiver {
  readonly incomingDir: string;

  constructor(
    readonly dataDir: string,
    readonly maxBytes: number,
  ) {
    this.incomingDir = path.join(dataDir, 'uploads', 'incoming');
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
      throw err;
    }
    return { path: file, filename: safeFilename(clientName), size, early };
  }

  /** Removes a received file that will not become a sound or a pending upload. */
  async discard(file: ReceivedFile): Promise<void> {
    await fs.rm(file.path, { force: true });
  }

  /** Removes partial files a crashed process left (older than `olderThanMs`). */
  async sweep(olderThanMs = 24 * 3600_000): Promise<number> {
    const names = await fs.readdir(this.incomingDir).catch(() => [] as string[]);
    let removed = 0;
    for (const name of names) {
      const file = path.join(this.incomingDir, name);
      const stat = await fs.stat(file).catch(() => undefined);
      if (stat && Date.now() - stat.mtimeMs > olderThanMs) {
        await fs.rm(file, { force: true });
        removed++;
      }
    }
    return removed;
  }
}

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
