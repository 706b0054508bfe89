import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buffer } from 'node:stream/consumers';
import { promisify } from 'node:util';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedZip, type ZipEntry } from './stored-zip.ts';

// The zip is judged by Info-ZIP's unzip (`-t` re-reads every entry and checks its CRC), the tool
// the floor's `zip -0` comes from.
const run = promisify(execFile);
let dir: string;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'earshot-stored-zip-'));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function writeZip(entries: ZipEntry[], options: Parameters<typeof storedZip>[1] = {}): Promise<string> {
  const zip = path.join(dir, `${randomBytes(6).toString('hex')}.zip`);
  await fs.writeFile(zip, await buffer(storedZip(entries, options)));
  return zip;
}

async function file(name: string, bytes: Buffer): Promise<string> {
  const at = path.join(dir, name);
  await fs.writeFile(at, bytes);
  return at;
}

describe('storedZip', () => {
  it('stores files with a known CRC, files without one, an empty file and an in-memory entry: unzip -t passes and the bytes come back', async () => {
    const a = randomBytes(3 * 1024 * 1024 + 17); // several chunks, the last one short
    const b = randomBytes(1000);
    const files = {
      a: await file('a.bin', a),
      b: await file('b.bin', b),
      empty: await file('empty.bin', Buffer.alloc(0)),
    };
    const zip = await writeZip(
      [
        { name: 'known.bin', file: files.a, crc32: crc32(a) },
        { name: 'computed.bin', file: files.b },
        { name: 'empty.wav', file: files.empty, crc32: null },
        { name: 'Ünïcode — readme.txt', data: Buffer.from('hello\n') },
      ],
      { chunkBytes: 1024 * 1024 },
    );
    const tested = await run('unzip', ['-t', zip]);
    expect(tested.stdout).toContain('No errors detected');
    const listed = await run('unzip', ['-Z1', zip]);
    expect(listed.stdout.trim().split('\n')).toEqual([
      'known.bin',
      'computed.bin',
      'empty.wav',
      'Ünïcode — readme.txt',
    ]);
    const back = (name: string) =>
      run('unzip', ['-p', zip, name], { encoding: 'buffer', maxBuffer: 8 * 1024 * 1024 });
    expect((await back('known.bin')).stdout.equals(a)).toBe(true);
    expect((await back('computed.bin')).stdout.equals(b)).toBe(true);
    // The same layout as `zip -0`: no data descriptor for an entry whose CRC was known.
    const raw = await fs.readFile(zip);
    expect(raw.readUInt16LE(6) & 0x0008).toBe(0);
    expect(raw.readUInt32LE(14)).toBe(crc32(a));
    expect(raw.readUInt32LE(18)).toBe(a.length);
  });

  it('fails the test of a zip whose stored CRC is wrong (the CRC in the header is what unzip checks)', async () => {
    const bytes = randomBytes(5000);
    const zip = await writeZip([
      { name: 'x.bin', file: await file('x.bin', bytes), crc32: crc32(bytes) ^ 1 },
    ]);
    await expect(run('unzip', ['-t', zip])).rejects.toMatchObject({
      stdout: expect.stringContaining('bad CRC'),
    });
  });

  it('leaves out a file that cannot be opened and reports it', async () => {
    const missing: string[] = [];
    const zip = await writeZip(
      [
        { name: 'gone.wav', file: path.join(dir, 'not-there.wav'), crc32: 1 },
        { name: 'here.txt', data: Buffer.from('here') },
      ],
      { onMissing: (entry) => missing.push(entry.name) },
    );
    expect(missing).toEqual(['gone.wav']);
    expect((await run('unzip', ['-Z1', zip])).stdout.trim()).toBe('here.txt');
    expect((await run('unzip', ['-t', zip])).stdout).toContain('No errors detected');
  });

  it('fails the stream (no complete-looking zip) when a file is shorter than when it was opened', async () => {
    const at = await file('shrinks.bin', randomBytes(8 * 1024 * 1024));
    const stream = storedZip(
      (async function* () {
        yield { name: 'shrinks.bin', file: at, crc32: null };
      })(),
      { chunkBytes: 1024 * 1024 },
    );
    // Paused after its first chunk (the stream holds one at a time): the rest of the file then goes.
    await new Promise((resolve) => stream.once('readable', resolve));
    await fs.truncate(at, 1024 * 1024);
    await expect(buffer(stream)).rejects.toThrow(/ended .* bytes early/);
  });

  it('writes ZIP64 end records when there are more than 65,534 entries', async () => {
    const entries = Array.from({ length: 70_000 }, (_, i) => ({
      name: `${i}.txt`,
      data: Buffer.from(`${i}`),
    }));
    const zip = await writeZip(entries);
    const raw = await fs.readFile(zip);
    // End of central directory: the 16-bit count saturates and the ZIP64 record holds the real one.
    expect(raw.readUInt16LE(raw.length - 22 + 10)).toBe(0xffff);
    const tested = await run('unzip', ['-t', zip], { maxBuffer: 64 * 1024 * 1024 });
    expect(tested.stdout).toContain('No errors detected in compressed data');
    const listed = await run('unzip', ['-Z1', zip], { maxBuffer: 64 * 1024 * 1024 });
    expect(listed.stdout.trim().split('\n')).toHaveLength(70_000);
  });
});
