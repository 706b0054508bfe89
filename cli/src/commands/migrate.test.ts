import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase } from '@earshot/catalogue/testing';
import { testService } from '@earshot/common/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { runEarshot } from '../testing/index.ts';

const migrationsDir = fileURLToPath(new URL('../../../packages/catalogue/src/migrations/', import.meta.url));
const allMigrations = fs
  .readdirSync(migrationsDir)
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
  .map((f) => f.replace(/\.ts$/, ''))
  .sort();
const postgresUrl = await testService('postgres');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-cli-migrate-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const earshot = (env: Record<string, string>, ...args: string[]) =>
  runEarshot({ LOG_LEVEL: 'warn', ...env }, ...args);

describe('earshot migrate', () => {
  it('applies every migration to a new embedded database once, then reports it up to date', async () => {
    const env = { DATA_DIR: path.join(work, 'data'), DATABASE_URL: '' };
    const first = await earshot(env, 'migrate');
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain(`applied ${allMigrations.length} migration(s) to the embedded database`);
    for (const name of allMigrations) expect(first.stdout).toContain(`  ${name}\n`);
    const second = await earshot(env, 'migrate');
    expect(second.status, second.stderr).toBe(0);
    expect(second.stdout).toBe(`the embedded database in ${env.DATA_DIR} is up to date\n`);
    expect(fs.existsSync(path.join(env.DATA_DIR, 'catalogue.lock'))).toBe(false);
  });

  it.skipIf(!postgresUrl)('applies them to the PostgreSQL server named by DATABASE_URL', async () => {
    const database = await createTestDatabase(postgresUrl as string);
    try {
      const env = { DATABASE_URL: database.url, DATA_DIR: path.join(work, 'unused') };
      const first = await earshot(env, 'migrate');
      expect(first.status, first.stderr).toBe(0);
      expect(first.stdout).toContain(`applied ${allMigrations.length} migration(s) to the PostgreSQL server`);
      expect((await earshot(env, 'migrate')).stdout).toBe('the PostgreSQL server is up to date\n');
      expect(fs.existsSync(env.DATA_DIR)).toBe(false);
    } finally {
      await database.drop();
    }
  });
});
