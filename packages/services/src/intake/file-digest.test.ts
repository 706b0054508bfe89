import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32 } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { digestFile } from './file-digest.ts';

/** The hashing thread on whole files (what the duplicate check reads): real files, two at once. */
describe('digestFile', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'earshot-digest-'));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('gives the md5 and CRC-32 of files of several MiB, two at once, and of an empty file', async () => {
    const files = [randomBytes(5 * 1024 * 1024 + 123), randomBytes(3 * 1024 * 1024 + 7), Buffer.alloc(0)];
    const paths = await Promise.all(
      files.map(async (bytes, i) => {
        const file = path.join(dir, `f${i}`);
        await fs.writeFile(file, bytes);
        return file;
      }),
    );
    const digests = await Promise.all(paths.map((file, i) => digestFile(file, files[i].length)));
    digests.forEach((d, i) => {
      expect(d.md5).toBe(createHash('md5').update(files[i]).digest('hex'));
      expect(d.crc32).toBe(crc32(files[i]));
    });
  });

  it('refuses a file shorter than the size given, and a missing one', async () => {
    const file = path.join(dir, 'short');
    await fs.writeFile(file, Buffer.alloc(1000, 1));
    await expect(digestFile(file, 2000)).rejects.toThrow(/shorter/);
    await expect(digestFile(path.join(dir, 'none'), 10)).rejects.toThrow(/hashing the upload failed/);
  });

  it('lets a process that hashed a file exit on its own (a CLI command: its idle thread holds nothing)', async () => {
    const bytes = randomBytes(2 * 1024 * 1024 + 5);
    const file = path.join(dir, 'cli');
    await fs.writeFile(file, bytes);
    const module = fileURLToPath(new URL('./file-digest.ts', import.meta.url));
    const script = `import { digestFile } from ${JSON.stringify(module)};
      const d = await digestFile(${JSON.stringify(file)}, ${bytes.length});
      console.log(d.md5);`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.error, 'the process did not exit by itself').toBeUndefined();
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(createHash('md5').update(bytes).digest('hex'));
  });
});
