import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { safeFilename, UploadReceiver, UploadTooLargeError } from './upload-receiver.ts';

/** The upload receiver on its own: a real data folder, real streams, real files. */
describe('upload receiver', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'earshot-receiver-'));
  });
  afterEach(async () => {
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('stores a stream whole under uploads/incoming with its size and md5', async () => {
    const bytes = Buffer.alloc(300_000, 7);
    const received = await new UploadReceiver(dataDir, 1_000_000).receive(
      Readable.from([bytes]),
      'C:\\x\\a.wav',
    );
    expect(path.dirname(received.path)).toBe(path.join(dataDir, 'uploads', 'incoming'));
    expect(received.filename).toBe('a.wav');
    expect(received.size).toBe(bytes.length);
    expect(received.md5).toBe(createHash('md5').update(bytes).digest('hex'));
    expect(await fs.readFile(received.path)).toEqual(bytes);
  });

  it('refuses a stream over the limit and leaves no partial file', async () => {
    const receiver = new UploadReceiver(dataDir, 100_000);
    const chunks = Array.from({ length: 4 }, () => Buffer.alloc(40_000, 1));
    await expect(receiver.receive(Readable.from(chunks), 'big.wav')).rejects.toBeInstanceOf(
      UploadTooLargeError,
    );
    expect(await fs.readdir(receiver.incomingDir)).toEqual([]);
  });

  it('sweeps only the partial files older than the age given (what a crashed process left)', async () => {
    const receiver = new UploadReceiver(dataDir, 1_000);
    await fs.mkdir(receiver.incomingDir, { recursive: true });
    const old = path.join(receiver.incomingDir, 'old.partial');
    const fresh = path.join(receiver.incomingDir, 'fresh.partial');
    await fs.writeFile(old, 'x');
    await fs.writeFile(fresh, 'y');
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600_000);
    await fs.utimes(old, twoDaysAgo, twoDaysAgo);
    expect(await receiver.sweep()).toBe(1);
    expect(await fs.readdir(receiver.incomingDir)).toEqual(['fresh.partial']);
    // No folder yet (a fresh data folder): nothing to sweep, no error.
    expect(await new UploadReceiver(path.join(dataDir, 'none'), 1_000).sweep()).toBe(0);
  });

  it('keeps the client name without folders or control characters', () => {
    expect(safeFilename('/etc/../a\u0000b.wav')).toBe('ab.wav');
    expect(safeFilename('  ')).toBe('upload');
  });
});
