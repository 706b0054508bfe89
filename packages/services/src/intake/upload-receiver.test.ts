import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
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

  it('stores a stream whole under uploads/incoming with its size', async () => {
    const bytes = Buffer.alloc(300_000, 7);
    const received = await new UploadReceiver(dataDir, 1_000_000).receive(
      Readable.from([bytes]),
      'C:\\x\\a.wav',
    );
    expect(path.dirname(received.path)).toBe(path.join(dataDir, 'uploads', 'incoming'));
    expect(received.filename).toBe('a.wav');
    expect(received.size).toBe(bytes.length);
    expect(await fs.readFile(received.path)).toEqual(bytes);
  });

  it('stores several MiB arriving in small chunks, two uploads at once, each whole', async () => {
    const receiver = new UploadReceiver(dataDir, 64 * 1024 * 1024);
    // 64 KiB chunks, as a socket delivers them.
    const upload = (bytes: Buffer) =>
      receiver.receive(
        Readable.from(
          Array.from({ length: Math.ceil(bytes.length / 65_536) }, (_, i) =>
            bytes.subarray(i * 65_536, (i + 1) * 65_536),
          ),
        ),
        'take.wav',
      );
    const a = randomBytes(5 * 1024 * 1024 + 123);
    const b = randomBytes(3 * 1024 * 1024 + 7);
    const [ra, rb] = await Promise.all([upload(a), upload(b)]);
    for (const [received, bytes] of [
      [ra, a],
      [rb, b],
    ] as const) {
      expect(received.size).toBe(bytes.length);
      expect((await fs.readFile(received.path)).equals(bytes)).toBe(true);
    }
  });

  it('leaves no file when the stream fails after several MiB, and the next upload is stored whole', async () => {
    const receiver = new UploadReceiver(dataDir, 64 * 1024 * 1024);
    const source = new PassThrough();
    const receiving = receiver.receive(source, 'cut.wav');
    for (let i = 0; i < 40; i++) source.write(randomBytes(65_536));
    await new Promise((r) => setTimeout(r, 50));
    source.destroy(new Error('client gone'));
    await expect(receiving).rejects.toThrow('client gone');
    expect(await fs.readdir(receiver.incomingDir)).toEqual([]);
    const bytes = randomBytes(2 * 1024 * 1024);
    const next = await receiver.receive(Readable.from([bytes]), 'next.wav');
    expect((await fs.readFile(next.path)).equals(bytes)).toBe(true);
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

  it('holds its files on a lease that other processes respect, and their sweeps take a dead owner’s (issue 31)', async () => {
    const leaseMs = 2000;
    const owner = new UploadReceiver(dataDir, 1_000_000, { leaseMs });
    // Another process sharing the data folder (perhaps on another host).
    const other = new UploadReceiver(dataDir, 1_000_000, { leaseMs });
    const received = await owner.receive(Readable.from([Buffer.alloc(1000, 1)]), 'a.wav');
    // Received, then waiting (its request still deciding) longer than the lease: its owner renews it.
    await sleep(2 * leaseMs);
    expect(await other.sweep()).toBe(0);
    expect((await fs.stat(received.path)).size).toBe(1000);
    // The owner dies: its renewals stop, and the other's periodic sweep removes the file.
    owner.stop();
    other.startSweeping();
    try {
      const gone = async () =>
        fs.stat(received.path).then(
          () => false,
          () => true,
        );
      const deadline = Date.now() + 20 * leaseMs;
      while (!(await gone()) && Date.now() < deadline) await sleep(100);
      expect(await gone()).toBe(true);
    } finally {
      other.stop();
    }
  }, 60_000);

  it('keeps the client name without folders or control characters', () => {
    expect(safeFilename('/etc/../a\u0000b.wav')).toBe('ab.wav');
    expect(safeFilename('  ')).toBe('upload');
  });
});
