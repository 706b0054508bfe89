import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '@earshot/common';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { readLock } from './data-folder-lock.ts';
import { type Catalogue, openCatalogue } from './open-catalogue.ts';

const folders: string[] = [];
const opened: Catalogue[] = [];
afterEach(async () => {
  for (const c of opened.splice(0)) await c.close();
  for (const dir of folders.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const mode = (file: string) => fs.statSync(file).mode & 0o777;

async function openIn(dataDir: string): Promise<Catalogue> {
  const catalogue = await openCatalogue({
    config: { dataDir },
    logger: createLogger('silent'),
    role: 'server',
    migrate: false,
    description: 'private host test',
  });
  opened.push(catalogue);
  return catalogue;
}

describe('the embedded database is reachable by this account only', () => {
  it('serves a data folder too deep for a socket path from a private folder, never over TCP', async () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-deep-'));
    folders.push(base);
    const dataDir = path.join(base, 'a'.repeat(60), 'b'.repeat(60));
    const catalogue = await openIn(dataDir);
    const address = readLock(dataDir)?.address;
    expect(address).toBeDefined();
    expect(address && 'socketDir' in address).toBe(true);
    const socketDir = (address as { socketDir: string }).socketDir;
    expect(mode(socketDir)).toBe(0o700);
    const rows = await sql<{ one: number }>`select 1 as one`.execute(catalogue.db);
    expect(rows.rows[0].one).toBe(1);
    await catalogue.close();
    opened.splice(0);
    expect(fs.existsSync(socketDir)).toBe(false);
  });

  it('keeps the data folder, the database files and the socket folder private', async () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-private-'));
    folders.push(base);
    const dataDir = path.join(base, 'data');
    await openIn(dataDir);
    expect(mode(dataDir)).toBe(0o700);
    expect(mode(path.join(dataDir, 'db'))).toBe(0o700);
    expect(mode(path.join(dataDir, 'run'))).toBe(0o700);
    const open: string[] = [];
    for (const entry of fs.readdirSync(path.join(dataDir, 'db'), { withFileTypes: true, recursive: true })) {
      const full = path.join(entry.parentPath, entry.name);
      if (entry.isFile() && (mode(full) & 0o077) !== 0) open.push(`${full} ${mode(full).toString(8)}`);
    }
    expect(open).toEqual([]);
  });
});
