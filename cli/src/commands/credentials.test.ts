import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runEarshot } from '../testing/index.ts';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-cli-credentials-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const env = { DATA_DIR: path.join(work, 'data'), DATABASE_URL: '', LOG_LEVEL: 'warn' };

function earshot(...args: string[]) {
  return earshotWith({}, ...args);
}

function earshotWith(extraEnv: Record<string, string>, ...args: string[]) {
  return runEarshot({ ...env, ...extraEnv }, ...args);
}

describe('earshot credentials: rate-limit levels', () => {
  it('creates a credential at a level, changes it, and refuses unknown levels and clients', async () => {
    expect((await earshot('migrate')).status).toBe(0);
    const standard = await earshot('credentials', 'create', '--user', 'ann', '--name', 'app');
    expect(standard.status, standard.stderr).toBe(0);
    expect(standard.stdout).toContain('level:         standard\n');
    const created = await earshot(
      'credentials',
      'create',
      '--user',
      'ann',
      '--name',
      'bot',
      '--level',
      'unlimited',
      '--json',
    );
    expect(created.status, created.stderr).toBe(0);
    const credential = JSON.parse(created.stdout) as { client_id: string; rate_limit_level: string };
    expect(credential.rate_limit_level).toBe('unlimited');

    const changed = await earshot('credentials', 'level', credential.client_id, 'suspended');
    expect(changed.status, changed.stderr).toBe(0);
    expect(changed.stdout).toContain(`${credential.client_id}: unlimited -> suspended`);
    // The change was stored: the next change starts from it.
    const again = await earshot('credentials', 'level', credential.client_id, 'elevated');
    expect(again.stdout).toContain(`${credential.client_id}: suspended -> elevated`);

    const unknownLevel = await earshot('credentials', 'level', credential.client_id, 'gold');
    expect(unknownLevel.status).toBe(2);
    expect(unknownLevel.stderr).toContain(
      "Unknown rate-limit level 'gold': use one of suspended, standard, elevated, high, unlimited",
    );
    const badCreate = await earshot(
      'credentials',
      'create',
      '--user',
      'ann',
      '--name',
      'x',
      '--level',
      'gold',
    );
    expect(badCreate.status).toBe(2);
    const unknownClient = await earshot('credentials', 'level', 'nosuchclient', 'standard');
    expect(unknownClient.status).toBe(2);
    expect(unknownClient.stderr).toContain("No credential has the client id 'nosuchclient'");
  }, 120_000);
});

describe('earshot credentials: keys shown once', () => {
  it('prints the key at creation and a new one on regenerate; unknown clients are refused', async () => {
    expect((await earshot('migrate')).status).toBe(0);
    const created = await earshot('credentials', 'create', '--user', 'bea', '--name', 'app', '--json');
    expect(created.status, created.stderr).toBe(0);
    const credential = JSON.parse(created.stdout) as { client_id: string; client_secret: string };
    expect(credential.client_secret).toMatch(/^[A-Za-z0-9]{40}$/);

    const again = await earshot('credentials', 'regenerate', credential.client_id);
    expect(again.status, again.stderr).toBe(0);
    const fresh = /client_secret: ([A-Za-z0-9]{40}) /.exec(again.stdout)?.[1];
    expect(fresh).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(fresh).not.toBe(credential.client_secret);
    expect(again.stdout).toContain('shown this once');
    // Only digests are stored: neither key is in the database's files.
    const stored = readTree(env.DATA_DIR);
    expect(stored.includes(Buffer.from(credential.client_secret))).toBe(false);
    expect(stored.includes(Buffer.from(fresh!))).toBe(false);

    const unknown = await earshot('credentials', 'regenerate', 'nosuchclient');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("No credential has the client id 'nosuchclient'");
  }, 120_000);
});

describe('earshot credentials: the cap per user', () => {
  it('refuses a credential past CREDENTIALS_PER_USER with the reason, unless --over-limit', async () => {
    expect((await earshot('migrate')).status).toBe(0);
    const create = (...extra: string[]) =>
      earshotWith(
        { CREDENTIALS_PER_USER: '2' },
        'credentials',
        'create',
        '--user',
        'cid',
        '--name',
        'app',
        ...extra,
      );
    expect((await create()).status).toBe(0);
    expect((await create()).status).toBe(0);
    const refused = await create();
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain(
      'An account may have at most 2 API credentials: revoke one that is no longer used before asking for another.',
    );
    const forced = await create('--over-limit');
    expect(forced.status, forced.stderr).toBe(0);
    expect(forced.stdout).toContain('level:         standard\n');
  }, 120_000);
});

/** Every file under `dir`, concatenated (the embedded database's pages included). */
function readTree(dir: string): Buffer {
  const parts: Buffer[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) parts.push(fs.readFileSync(path.join(entry.parentPath, entry.name)));
  }
  return Buffer.concat(parts);
}
