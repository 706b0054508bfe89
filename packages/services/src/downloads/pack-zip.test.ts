import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { creditLine, LICENSE_DEEDS, type PackView } from '@earshot/catalogue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREDITS_JSON_NAME } from './credits.ts';
import { packZip, README_NAME, type ZippedSound } from './pack-zip.ts';

// A pack's zip whose sounds arrive as the catalogue pages them in (an async iterable) and whose
// end waits for `beforeEnd` (the download being counted): judged by Info-ZIP's unzip.
const run = promisify(execFile);
let dir: string;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'earshot-pack-zip-'));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const pack = { id: 7, name: 'Paged', username: 'alice' } as PackView;

async function sound(id: number, exists = true): Promise<ZippedSound> {
  const file = path.join(dir, `${id}.wav`);
  if (exists) await fs.writeFile(file, Buffer.alloc(1000 + id, id));
  return {
    id,
    name: `Sound ${id}`,
    username: 'alice',
    license: 'Creative Commons 0',
    file,
    entryName: `${id}__alice__Sound ${id}.wav`,
    crc32: null,
  };
}

/** An async iterable that hands out the first sound, then waits for `release` before the rest. */
function gated(sounds: ZippedSound[], release: Promise<void>): AsyncIterable<ZippedSound> {
  return (async function* () {
    yield sounds[0];
    await release;
    yield* sounds.slice(1);
  })();
}

describe('packZip', () => {
  it('sends the first entry before the later sounds are known and ends only after beforeEnd', async () => {
    const sounds = [await sound(1), await sound(2), await sound(3, false), await sound(4)];
    let releaseRows = () => {};
    const rows = new Promise<void>((resolve) => {
      releaseRows = resolve;
    });
    let counted = false;
    let releaseCount = () => {};
    const count = new Promise<void>((resolve) => {
      releaseCount = () => {
        counted = true;
        resolve();
      };
    });
    const stream = packZip({ pack, sounds: gated(sounds, rows), origin: 'http://x', beforeEnd: () => count });
    const chunks: Buffer[] = [];
    let ended = false;
    stream.on('data', (c: Buffer) => chunks.push(c));
    const end = new Promise<void>((resolve, reject) => {
      stream.on('end', () => {
        ended = true;
        resolve();
      });
      stream.on('error', reject);
    });
    // The first sound's local header and bytes leave while the other rows are still unread.
    await new Promise((r) => setTimeout(r, 50));
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks[0].readUInt32LE(0)).toBe(0x04034b50);
    releaseRows();
    await new Promise((r) => setTimeout(r, 50));
    expect(ended).toBe(false); // waiting for the count
    releaseCount();
    await end;
    expect(counted).toBe(true);

    const zip = path.join(dir, 'paged.zip');
    await fs.writeFile(zip, Buffer.concat(chunks));
    expect((await run('unzip', ['-t', zip])).stdout).toContain('No errors detected');
    const names = (await run('unzip', ['-Z1', zip])).stdout.trim().split('\n');
    expect(names).toEqual(
      [sounds[0], sounds[1], sounds[3]].map((s) => s.entryName).concat(CREDITS_JSON_NAME, README_NAME),
    );
    // The credits: the sounds in the zip, not the one left out.
    const credits = JSON.parse((await run('unzip', ['-p', zip, CREDITS_JSON_NAME])).stdout);
    expect(credits.sounds.map((c: { id: number }) => c.id)).toEqual(
      [sounds[0], sounds[1], sounds[3]].map((s) => s.id),
    );
    expect(credits.sounds[2]).toEqual({
      id: sounds[3].id,
      name: sounds[3].name,
      username: sounds[3].username,
      url: `http://x/people/${sounds[3].username}/sounds/${sounds[3].id}/`,
      license: sounds[3].license,
      license_url: LICENSE_DEEDS[sounds[3].license],
      attribution: creditLine({
        ...sounds[3],
        url: `http://x/people/${sounds[3].username}/sounds/${sounds[3].id}/`,
      }),
    });
    const readme = (await run('unzip', ['-p', zip, README_NAME])).stdout;
    expect(readme).toContain('"Sound 4" by alice, http://x/apiv2/sounds/4/');
    const [included, left] = readme.split('Not included');
    expect(included).not.toContain('Sound 3');
    expect(left).toContain('"Sound 3" by alice, http://x/apiv2/sounds/3/');
  });

  it('aborts the zip (no end of central directory) when beforeEnd fails', async () => {
    const stream = packZip({
      pack,
      sounds: [await sound(5)],
      origin: 'http://x',
      beforeEnd: () => Promise.reject(new Error('count failed')),
    });
    const chunks: Buffer[] = [];
    await expect(
      (async () => {
        for await (const c of stream) chunks.push(c as Buffer);
      })(),
    ).rejects.toThrow('count failed');
    expect(Buffer.concat(chunks).includes(Buffer.from([0x50, 0x4b, 0x05, 0x06]))).toBe(false);
  });
});
