import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { EarshotError } from '@earshot/common';
import { type Kysely, type Migration, type MigrationProvider, type MigrationResult, Migrator } from 'kysely';
import type { Database } from './schema/database.ts';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

/**
 * Every `migrations/<timestamp>-<name>` module, in file-name order: the `.ts` sources, or the `.js`
 * files of a built package. Read from the folder so each engineer adds a migration without touching
 * a shared list; the name recorded in the database has no extension, so both forms agree.
 */
export class FolderMigrationProvider implements MigrationProvider {
  constructor(private readonly dir = MIGRATIONS_DIR) {}

  async getMigrations(): Promise<Record<string, Migration>> {
    const files = fs
      .readdirSync(this.dir)
      .filter((f) => /^[^.]+\.(ts|js)$/.test(f))
      .sort();
    const migrations: Record<string, Migration> = {};
    for (const file of files) {
      const module = (await import(pathToFileURL(path.join(this.dir, file)).href)) as Migration;
      migrations[file.replace(/\.(ts|js)$/, '')] = module;
    }
    return migrations;
  }
}

export class MigrationError extends EarshotError {
  constructor(message: string, details?: unknown) {
    super(message, 'migration_failed', 500, details);
  }
}

export interface MigrateOutcome {
  /** Names of the migrations this call applied, in order (empty when the schema was current). */
  applied: string[];
}

/**
 * Brings the schema up to date. Safe to call from many processes at once: Kysely's migrator takes
 * a transaction-scoped advisory lock on PostgreSQL, and on the embedded database the one backend
 * runs one transaction at a time.
 */
export async function migrateDatabase(db: Kysely<Database>): Promise<MigrateOutcome> {
  const migrator = new Migrator({ db, provider: new FolderMigrationProvider() });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r: MigrationResult) => r.status === 'Error');
  if (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new MigrationError(
      `database migration ${failed ? `"${failed.migrationName}" ` : ''}failed: ${reason}`,
      { cause: error },
    );
  }
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}

/** `migrateDatabase` for an open catalogue (what `earshot migrate` runs). */
export function migrate(catalogue: { db: Kysely<Database> }): Promise<MigrateOutcome> {
  return migrateDatabase(catalogue.db);
}
