import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger, type Logger } from '@earshot/common';
import pg from 'pg';
import { type Catalogue, openCatalogue } from '../connection/open-catalogue.ts';

export type TestBackend = 'pglite' | 'postgres';

export interface TestCatalogue {
  catalogue: Catalogue;
  backend: TestBackend;
  /** The data folder (pglite) or the database URL (postgres) the catalogue uses. */
  location: string;
  /** Closes the catalogue and removes its data folder or database. */
  cleanup(): Promise<void>;
}

/** The backends a suite runs on: PGlite always, the PostgreSQL server when `testService` found one. */
export function testBackends(postgresUrl: string | undefined): TestBackend[] {
  return postgresUrl ? ['pglite', 'postgres'] : ['pglite'];
}

/**
 * A migrated, empty catalogue of its own: a temporary data folder for PGlite, a fresh database on
 * the server for PostgreSQL, so parallel test files never see each other's rows.
 */
export async function openTestCatalogue(
  backend: TestBackend,
  options: { postgresUrl?: string; logger?: Logger } = {},
): Promise<TestCatalogue> {
  const logger = options.logger ?? createLogger('warn');
  if (backend === 'pglite') {
    const dataDir = await freshDataDir();
    const catalogue = await openCatalogue({ config: { dataDir }, logger, role: 'server' });
    return {
      catalogue,
      backend,
      location: dataDir,
      async cleanup() {
        await catalogue.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  if (!options.postgresUrl)
    throw new Error('openTestCatalogue("postgres") needs postgresUrl (from testService)');
  const { url, drop } = await createTestDatabase(options.postgresUrl);
  const catalogue = await openCatalogue({ config: { dataDir: os.tmpdir(), DATABASE_URL: url }, logger });
  return {
    catalogue,
    backend,
    location: url,
    async cleanup() {
      await catalogue.close();
      await drop();
    },
  };
}

/** Creates an empty database next to the one `baseUrl` names; `drop` removes it. */
export async function createTestDatabase(baseUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `earshot_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await adminQuery(baseUrl, `CREATE DATABASE ${name}`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => adminQuery(baseUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

async function adminQuery(baseUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * A temporary data folder holding an already-migrated embedded database. Creating a PGlite
 * database takes seconds, so each set of migrations is built once into a template and copied.
 */
export async function freshDataDir(): Promise<string> {
  const template = await migratedTemplate();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-catalogue-'));
  fs.cpSync(template, path.join(dataDir, 'db'), { recursive: true });
  return dataDir;
}

async function migratedTemplate(): Promise<string> {
  const template = path.join(os.tmpdir(), `earshot-catalogue-template-${migrationsFingerprint()}`);
  if (fs.existsSync(template)) return template;
  const building = fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-catalogue-building-'));
  const catalogue = await openCatalogue({ config: { dataDir: building }, logger: createLogger('warn') });
  await catalogue.close();
  try {
    fs.renameSync(path.join(building, 'db'), template);
  } catch (err) {
    // Another test file built the same template first; theirs is as good as ours.
    if (!fs.existsSync(template)) throw err;
  }
  fs.rmSync(building, { recursive: true, force: true });
  removeOldTemplates(template);
  return template;
}

// Each migration change leaves a ~40 MB template behind; ones untouched for an hour belong to
// migrations that no longer exist (a running suite would have just built or reused its own).
function removeOldTemplates(keep: string): void {
  const tmp = os.tmpdir();
  for (const name of fs.readdirSync(tmp)) {
    if (!/^earshot-catalogue-(template|building)-/.test(name)) continue;
    const full = path.join(tmp, name);
    if (full === keep) continue;
    try {
      if (Date.now() - fs.statSync(full).mtimeMs > 3_600_000)
        fs.rmSync(full, { recursive: true, force: true });
    } catch {
      // Another process removed it first.
    }
  }
}

function migrationsFingerprint(): string {
  const dir = fileURLToPath(new URL('../migrations/', import.meta.url));
  const hash = createHash('sha256');
  // A new PGlite may not read an older one's data folder.
  const pgliteEntry = fileURLToPath(import.meta.resolve('@electric-sql/pglite'));
  hash.update(fs.readFileSync(path.join(path.dirname(pgliteEntry), '..', 'package.json')));
  for (const file of fs.readdirSync(dir).sort()) {
    hash.update(file);
    hash.update(fs.readFileSync(path.join(dir, file)));
  }
  return hash.digest('hex').slice(0, 16);
}
