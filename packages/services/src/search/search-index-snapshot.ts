import fs from 'node:fs/promises';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import type { SnapshotStore } from '@earshot/catalogue';

/**
 * The text search index's snapshot in a data folder (`<dataDir>/search-index/posting-index.bin`):
 * read whole at start, written beside and renamed over the old one, so a reader never sees half a
 * file and processes (and threads) sharing the folder may write in turn. `sharedMemory` reads it
 * into shared memory, for an index whose lists other threads adopt.
 */
export function searchIndexSnapshotStore(
  dataDir: string,
  options: { sharedMemory?: boolean } = {},
): SnapshotStore {
  const dir = path.join(dataDir, 'search-index');
  const file = path.join(dir, 'posting-index.bin');
  return {
    async read() {
      try {
        return options.sharedMemory ? await readShared(file) : await fs.readFile(file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw err;
      }
    },
    async write(parts) {
      await fs.mkdir(dir, { recursive: true });
      // Threads of one process may write in turn too: each its own temporary file.
      const temporary = `${file}.${process.pid}.${threadId}.tmp`;
      const handle = await fs.open(temporary, 'w');
      try {
        for (const part of parts) await handle.write(part);
      } finally {
        await handle.close();
      }
      await fs.rename(temporary, file);
    },
  };
}

/** A whole file in shared memory. */
async function readShared(file: string): Promise<Uint8Array> {
  const handle = await fs.open(file, 'r');
  try {
    const { size } = await handle.stat();
    const bytes = new Uint8Array(new SharedArrayBuffer(size));
    for (let at = 0; at < size; ) {
      const { bytesRead } = await handle.read(bytes, at, size - at, at);
      if (bytesRead === 0) throw new Error(`${file} ended at ${at} of ${size} bytes`);
      at += bytesRead;
    }
    return bytes;
  } finally {
    await handle.close();
  }
}
