import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { openCatalogue } from '@earshot/catalogue';
import { insertSeedSound, insertSeedUser } from '@earshot/catalogue/testing';
import { createLogger, loadConfig } from '@earshot/common';
import { afterAll, describe, expect, it } from 'vitest';
import { runEarshot } from '../testing/index.ts';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-cli-export-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const env = { DATA_DIR: path.join(work, 'data'), DATABASE_URL: '', LOG_LEVEL: 'warn', PUBLIC_URL: '' };

const earshot = (...args: string[]) => runEarshot(env, ...args);

describe('earshot export', () => {
  it('writes the public sounds as gzipped JSON Lines with their credit lines, counting as it goes', async () => {
    expect((await earshot('migrate')).status).toBe(0);
    const config = loadConfig(env);
    const catalogue = await openCatalogue({ config, logger: createLogger('silent'), role: 'command' });
    const userId = await insertSeedUser(catalogue.db, {
      username: 'ann',
      password_hash: null,
      avatar_path: null,
    });
    const row = {
      user_id: userId,
      original_filename: 'x.wav',
      original_path: '',
      processing_state: 'Processed' as const,
    };
    const shown = await insertSeedSound(catalogue.db, {
      ...row,
      name: 'Rain',
      license: 'Attribution',
      moderation_state: 'ok',
    });
    await insertSeedSound(catalogue.db, {
      ...row,
      name: 'Pending',
      license: 'Attribution',
      moderation_state: 'pending_moderation',
    });
    await catalogue.close();

    const refused = await earshot('export');
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain(
      'give the base of the links: --origin https://host (or set PUBLIC_URL).',
    );

    const done = await earshot('export', '--origin', 'https://sounds.example.org/');
    expect(done.status, done.stderr).toBe(0);
    expect(done.stderr).toContain('exported 1 sounds');
    expect(done.stdout).toMatch(/^1 sounds written to catalogue-.*\.jsonl\.gz \(.*\); changes since: \S+\n$/);
    const dir = path.join(env.DATA_DIR, 'exports');
    const info = JSON.parse(fs.readFileSync(path.join(dir, 'catalogue.json'), 'utf8'));
    const lines = gunzipSync(fs.readFileSync(path.join(dir, info.file)))
      .toString('utf8')
      .trimEnd()
      .split('\n');
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      expect.objectContaining({
        id: shown,
        name: 'Rain',
        username: 'ann',
        url: `https://sounds.example.org/people/ann/sounds/${shown}/`,
        license_url: 'https://creativecommons.org/licenses/by/4.0/',
        attribution: `"Rain" by ann (https://sounds.example.org/people/ann/sounds/${shown}/) is licensed under CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/)`,
      }),
    ]);
    // A later export replaces the first: the previous one stays (a download of it may be under
    // way), older ones go; the info names the latest.
    for (let i = 0; i < 2; i++)
      expect((await earshot('export', '--origin', 'https://sounds.example.org')).status).toBe(0);
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.jsonl.gz'));
    expect(files).toHaveLength(2);
    const latest = JSON.parse(fs.readFileSync(path.join(dir, 'catalogue.json'), 'utf8'));
    expect(files.sort().at(-1)).toBe(latest.file);
  }, 240_000); // five CLI processes, each starting Node and the catalogue
});
