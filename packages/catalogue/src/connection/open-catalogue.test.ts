import fs from 'node:fs';
import { createLogger } from '@earshot/common';
import { testService } from '@earshot/common/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../migrate.ts';
import {
  createTestDatabase,
  freshDataDir,
  openTestCatalogue,
  type TestCatalogue,
  testBackends,
} from '../testing/index.ts';
import { lockPath, readLock } from './data-folder-lock.ts';
import { openCatalogue } from './open-catalogue.ts';

const postgresUrl = await testService('postgres');
const logger = createLogger('warn');

const TABLES = [
  'api_credentials',
  'bookmark_categories',
  'bookmarks',
  'comments',
  'downloads',
  'oauth_grants',
  'oauth_tokens',
  'packs',
  'pending_uploads',
  'ratings',
  'sound_descriptors',
  'sound_remixes',
  'sound_similarity_vectors',
  'sound_tags',
  'sounds',
  'tags',
  'users',
];

describe.each(testBackends(postgresUrl))('openCatalogue on %s', (backend) => {
  let t: TestCatalogue;
  beforeAll(async () => {
    t = await openTestCatalogue(backend, { postgresUrl });
  });
  afterAll(() => t?.cleanup());

  it('opens the expected kind with every table of the schema migrated', async () => {
    expect(t.catalogue.kind).toBe(backend === 'postgres' ? 'postgres' : 'pglite');
    const rows = await sql<{ table_name: string }>`
      select table_name from information_schema.tables
      where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(t.catalogue.db);
    const names = rows.rows.map((r) => r.table_name);
    for (const table of TABLES) expect(names).toContain(table);
  });

  it('applies nothing when migrated again', async () => {
    expect((await migrate(t.catalogue)).applied).toEqual([]);
  });

  it('returns counts as numbers and timestamps as dates, the same on both backends', async () => {
    const row = await sql<{ n: number; at: Date }>`select count(*) as n, now() as at`.execute(t.catalogue.db);
    expect(row.rows[0].n).toBe(1);
    expect(row.rows[0].at).toBeInstanceOf(Date);
  });
});

describe.skipIf(!postgresUrl)('migrations on the PostgreSQL server', () => {
  it('are applied once when several processes open a fresh database at the same time', async () => {
    const { url, drop } = await createTestDatabase(postgresUrl as string);
    try {
      const config = { dataDir: '/nonexistent', DATABASE_URL: url };
      const opened = await Promise.all([1, 2, 3].map(() => openCatalogue({ config, logger })));
      const applied = await sql<{ name: string }>`select name from kysely_migration`.execute(opened[0].db);
      const names = applied.rows.map((r) => r.name);
      expect(new Set(names).size).toBe(names.length);
      expect(names[0]).toBe('20261122040000-catalogue-schema');
      await Promise.all(opened.map((c) => c.close()));
    } finally {
      await drop();
    }
  });
});

describe('embedded catalogue within one process', () => {
  it('lets a second opener use the first one’s database and frees the folder on close', async () => {
    const dataDir = await freshDataDir();
    const first = await openCatalogue({ config: { dataDir }, logger, role: 'server' });
    const second = await openCatalogue({ config: { dataDir }, logger, role: 'command' });
    expect([first.kind, second.kind]).toEqual(['pglite', 'pglite-client']);
    expect(readLock(dataDir)?.pid).toBe(process.pid);

    await second.db
      .insertInto('users')
      .values({ username: 'written-by-second', password_hash: null, avatar_path: null })
      .execute();
    const seen = await first.db.selectFrom('users').select('username').execute();
    expect(seen.map((u) => u.username)).toEqual(['written-by-second']);

    await second.close();
    await first.close();
    expect(fs.existsSync(lockPath(dataDir))).toBe(false);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('follows the folder: when the hosting process closes, a client becomes the new host and keeps the data', async () => {
    const dataDir = await freshDataDir();
    const first = await openCatalogue({ config: { dataDir }, logger, role: 'worker' });
    const second = await openCatalogue({ config: { dataDir }, logger, role: 'server' });
    expect(second.kind).toBe('pglite-client');
    await second.db
      .insertInto('users')
      .values({ username: 'before', password_hash: null, avatar_path: null })
      .execute();
    // Returns once the second one's idle connections have left (they close after a second).
    await first.close();
    await second.db
      .insertInto('users')
      .values({ username: 'after', password_hash: null, avatar_path: null })
      .execute();
    expect(second.kind).toBe('pglite');
    expect(readLock(dataDir)?.role).toBe('server');
    const names = await second.db.selectFrom('users').select('username').orderBy('id').execute();
    expect(names.map((u) => u.username)).toEqual(['before', 'after']);
    await second.close();
    expect(fs.existsSync(lockPath(dataDir))).toBe(false);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('takes over a lock left by a process that no longer exists', async () => {
    const dataDir = await freshDataDir();
    const stale = {
      pid: 2 ** 22 + 17,
      role: 'command',
      command: 'gone',
      since: '2020-01-01T00:00:00Z',
      address: null,
    };
    fs.writeFileSync(lockPath(dataDir), JSON.stringify(stale));
    const catalogue = await openCatalogue({ config: { dataDir }, logger });
    expect(catalogue.kind).toBe('pglite');
    expect(readLock(dataDir)?.pid).toBe(process.pid);
    await catalogue.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses a data folder held by a process on another machine instead of taking it over', async () => {
    const dataDir = await freshDataDir();
    const foreign = {
      pid: process.pid,
      hostname: 'another-machine',
      role: 'server',
      command: 'x',
      since: '2020-01-01T00:00:00Z',
      address: null,
    };
    fs.writeFileSync(lockPath(dataDir), JSON.stringify(foreign));
    await expect(openCatalogue({ config: { dataDir }, logger })).rejects.toThrow(
      /another-machine.*DATABASE_URL/,
    );
    expect(readLock(dataDir)?.hostname).toBe('another-machine');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('rolls back the open transaction of a connection that goes away, and keeps serving others', async () => {
    const dataDir = await freshDataDir();
    const host = await openCatalogue({ config: { dataDir }, logger });
    const client = await openCatalogue({ config: { dataDir }, logger });
    const trx = client.db.transaction().execute(async (tx) => {
      await tx
        .insertInto('users')
        .values({ username: 'never-committed', password_hash: null, avatar_path: null })
        .execute();
      throw new Error('abandon');
    });
    await expect(trx).rejects.toThrow('abandon');
    await host.db
      .insertInto('users')
      .values({ username: 'committed', password_hash: null, avatar_path: null })
      .execute();
    const names = (await host.db.selectFrom('users').select('username').execute()).map((u) => u.username);
    expect(names).toEqual(['committed']);
    await client.close();
    await host.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
});
