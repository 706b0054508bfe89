import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerToken, startTestServer, type TestServer } from './support/index.ts';

// Black-box tests of GET /apiv2/sounds/<id>/download/ and /apiv2/packs/<id>/download/ (API.md:
// OAuth2 only; the original file in its uploaded format; a pack as one zip).

const run = promisify(execFile);

let s: TestServer;
let token: string;

beforeAll(async () => {
  s = await startTestServer({ OAUTH2_HTTPS_ONLY: 'false' });
  token = await bearerToken(s, 'bob');
}, 120_000);
afterAll(() => s?.stop());

type Json = Record<string, any>;

const auth = (headers: Record<string, string> = {}) => ({
  headers: { Authorization: `Bearer ${token}`, ...headers },
});
const original = (sample: string) =>
  path.join(
    s.dataDir,
    'sounds',
    String(s.seeded.ids[sample] % 1000),
    String(s.seeded.ids[sample]),
    'original.flac',
  );

async function numDownloads(id: number): Promise<number> {
  const res = await fetch(`${s.origin}/apiv2/sounds/${id}/?fields=num_downloads&token=${s.seeded.apiKey}`);
  return ((await res.json()) as Json).num_downloads;
}

describe('GET /apiv2/sounds/<id>/download/', () => {
  it('sends the original with its type and a download name, and counts the download', async () => {
    const id = s.seeded.ids.bd_808;
    expect(await numDownloads(id)).toBe(0);
    const res = await fetch(`${s.origin}/apiv2/sounds/${id}/download/`, auth());
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/flac');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${id}__alice__Kick 808.flac"`);
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.equals(await fs.readFile(original('bd_808')))).toBe(true);
    expect(Number(res.headers.get('content-length'))).toBe(body.length);
    expect(await numDownloads(id)).toBe(1);
    const search = await fetch(
      `${s.origin}/apiv2/search/?filter=num_downloads:[1 TO *]&fields=id&token=${s.seeded.apiKey}`,
    );
    expect(((await search.json()) as Json).results).toEqual([{ id }]);
  });

  it('serves byte ranges; only a range from the first byte counts as a download', async () => {
    const id = s.seeded.ids.bd_fat;
    const file = await fs.readFile(original('bd_fat'));
    const url = `${s.origin}/apiv2/sounds/${id}/download/`;
    const head = await fetch(url, auth({ Range: 'bytes=0-99' }));
    expect(head.status).toBe(206);
    expect(head.headers.get('content-range')).toBe(`bytes 0-99/${file.length}`);
    expect(Buffer.from(await head.arrayBuffer()).equals(file.subarray(0, 100))).toBe(true);
    const rest = await fetch(url, auth({ Range: 'bytes=100-' }));
    expect(rest.status).toBe(206);
    expect(Buffer.from(await rest.arrayBuffer()).equals(file.subarray(100))).toBe(true);
    const tail = await fetch(url, auth({ Range: 'bytes=-10' }));
    expect(Buffer.from(await tail.arrayBuffer()).equals(file.subarray(file.length - 10))).toBe(true);
    expect(await numDownloads(id)).toBe(1);
    const beyond = await fetch(url, auth({ Range: `bytes=${file.length}-` }));
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${file.length}`);
    expect(typeof ((await beyond.json()) as Json).detail).toBe('string');
    expect(await numDownloads(id)).toBe(1);
  });

  it('is OAuth2 only and 404 for unknown or pending sounds', async () => {
    const url = `${s.origin}/apiv2/sounds/${s.seeded.ids.bd_808}/download/`;
    const withKey = await fetch(`${url}?token=${s.seeded.apiKey}`);
    expect(withKey.status).toBe(401);
    expect(await withKey.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
    expect((await fetch(url)).status).toBe(401);
    for (const id of [999_999, s.seeded.ids.hat_sci]) {
      const res = await fetch(`${s.origin}/apiv2/sounds/${id}/download/`, auth());
      expect(res.status).toBe(404);
      expect(typeof ((await res.json()) as Json).detail).toBe('string');
    }
  });
});

describe('GET /apiv2/packs/<id>/download/', () => {
  it('streams the pack as a zip of the originals with a licence and attribution file, and counts it', async () => {
    const id = s.seeded.packId;
    const res = await fetch(`${s.origin}/apiv2/packs/${id}/download/`, auth());
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${id}__Drums.zip"`);
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'earshot-zip-'));
    try {
      const zip = path.join(dir, 'pack.zip');
      await fs.writeFile(zip, Buffer.from(await res.arrayBuffer()));
      await run('unzip', ['-q', zip, '-d', path.join(dir, 'out')]); // also checks every CRC
      const names = (await fs.readdir(path.join(dir, 'out'))).sort();
      const ids = s.seeded.ids;
      expect(names).toEqual(
        [
          '_credits.json',
          '_readme_and_license.txt',
          `${ids.bd_808}__alice__Kick 808.flac`,
          `${ids.bd_fat}__alice__Fat kick.flac`,
          `${ids.hat_cab}__alice__Cabasa hat.flac`,
        ].sort(),
      );
      for (const sample of ['bd_808', 'bd_fat', 'hat_cab']) {
        const name = names.find((n) => n.startsWith(`${ids[sample]}__`)) as string;
        const unpacked = await fs.readFile(path.join(dir, 'out', name));
        expect(unpacked.equals(await fs.readFile(original(sample)))).toBe(true);
      }
      const readme = await fs.readFile(path.join(dir, 'out', '_readme_and_license.txt'), 'utf8');
      expect(readme).toContain('Pack "Drums" by alice');
      expect(readme).toContain(`"Fat kick" by alice, ${s.origin}/apiv2/sounds/${ids.bd_fat}/`);
      expect(readme).toContain('licence: Attribution (https://creativecommons.org/licenses/by/4.0/)');
      expect(readme).toContain(
        'licence: Creative Commons 0 (https://creativecommons.org/publicdomain/zero/1.0/)',
      );
      // Each sound's credit line, as its `attribution` field gives it, in the readme and the JSON.
      const attribution = async (id: number) =>
        ((await (await fetch(`${s.origin}/apiv2/sounds/${id}/?fields=attribution`, auth())).json()) as Json)
          .attribution as string;
      expect(readme).toContain(`  credit: ${await attribution(ids.bd_fat)}`);
      const credits = JSON.parse(await fs.readFile(path.join(dir, 'out', '_credits.json'), 'utf8')) as Json;
      expect(credits.title).toBe('Pack "Drums" by alice');
      expect(credits.sounds.map((c: Json) => c.id).sort()).toEqual(
        [ids.bd_808, ids.bd_fat, ids.hat_cab].sort(),
      );
      for (const credit of credits.sounds as Json[]) {
        expect(credit.attribution).toBe(await attribution(credit.id));
        expect(credit.url).toBe(`${s.origin}/people/alice/sounds/${credit.id}/`);
      }
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
    const pack = await fetch(`${s.origin}/apiv2/packs/${id}/?token=${s.seeded.apiKey}`);
    expect(((await pack.json()) as Json).num_downloads).toBe(1);
  });

  it('leaves out a sound whose file is gone (named in the readme) instead of breaking the zip', async () => {
    const ids = s.seeded.ids;
    const moved = `${original('hat_cab')}.away`;
    await fs.rename(original('hat_cab'), moved);
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'earshot-zip-'));
    try {
      const res = await fetch(`${s.origin}/apiv2/packs/${s.seeded.packId}/download/`, auth());
      expect(res.status).toBe(200);
      const zip = path.join(dir, 'pack.zip');
      await fs.writeFile(zip, Buffer.from(await res.arrayBuffer()));
      const { stdout } = await run('unzip', ['-Z1', zip]);
      expect(stdout.split('\n').filter(Boolean)).toHaveLength(4); // two sounds, the credits, the readme
      const { stdout: readme } = await run('unzip', ['-p', zip, '_readme_and_license.txt']);
      expect(readme).toContain(`Not included`);
      expect(readme.split('Not included')[1]).toContain(`/apiv2/sounds/${ids.hat_cab}/`);
    } finally {
      await fs.rename(moved, original('hat_cab'));
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('stores each file with the CRC-32 its processing recorded, and computes the CRC of a sound without one: unzip -t passes', async () => {
    const ids = s.seeded.ids;
    const db = s.catalogue.db;
    const pack = [ids.bd_808, ids.bd_fat, ids.hat_cab];
    const rows = await db.selectFrom('sounds').select(['id', 'crc32']).where('id', 'in', pack).execute();
    for (const row of rows) {
      const sample = Object.keys(ids).find((k) => ids[k] === row.id) as string;
      expect(row.crc32).toBe(crc32(await fs.readFile(original(sample))));
    }
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'earshot-zip-'));
    // A sound stored before the column: no CRC in the catalogue.
    await db.updateTable('sounds').set({ crc32: null }).where('id', '=', ids.bd_fat).execute();
    try {
      const res = await fetch(`${s.origin}/apiv2/packs/${s.seeded.packId}/download/`, auth());
      expect(res.status).toBe(200);
      const zip = path.join(dir, 'pack.zip');
      await fs.writeFile(zip, Buffer.from(await res.arrayBuffer()));
      const tested = await run('unzip', ['-t', zip]);
      expect(tested.stdout).toContain('No errors detected in compressed data');
      // `unzip -Zv` shows each entry's flags: only the sound without a stored CRC has a data descriptor.
      const { stdout } = await run('unzip', ['-Zv', zip]);
      const entries = stdout.split(/\n(?=Central directory entry)/).slice(1);
      const described = entries.filter((e) => /extended local header:\s+yes/.test(e));
      expect(described).toHaveLength(1);
      expect(described[0]).toContain(`${ids.bd_fat}__alice__Fat kick.flac`);
    } finally {
      await db
        .updateTable('sounds')
        .set({ crc32: rows.find((r) => r.id === ids.bd_fat)?.crc32 ?? null })
        .where('id', '=', ids.bd_fat)
        .execute();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('is OAuth2 only and 404 for an unknown pack', async () => {
    const url = `${s.origin}/apiv2/packs/${s.seeded.packId}/download/`;
    expect((await fetch(`${url}?token=${s.seeded.apiKey}`)).status).toBe(401);
    const missing = await fetch(`${s.origin}/apiv2/packs/999999/download/`, auth());
    expect(missing.status).toBe(404);
    expect(typeof ((await missing.json()) as Json).detail).toBe('string');
  });
});
