import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Catalogue, openCatalogue } from '@earshot/catalogue';
import { createLogger, type Logger } from '@earshot/common';
import pg from 'pg';

/**
 * A database of its own on the PostgreSQL server, with the catalogue opened on it, that a test can
 * take down and bring back: new connections are refused and open ones are cut, as when the
 * database server goes away; the server itself (and everyone else's databases) stays up.
 */
export class ServerDatabase {
  private constructor(
    private readonly admin: pg.Client,
    readonly name: string,
    readonly url: string,
    readonly dataDir: string,
    readonly catalogue: Catalogue,
    readonly logger: Logger,
  ) {}

  static async create(serverUrl: string, label: string): Promise<ServerDatabase> {
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    const name = `earshot_${label}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), `earshot-${label}-`));
    const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
    const catalogue = await openCatalogue({
      config: { dataDir, DATABASE_URL: url.toString() },
      logger,
      role: 'command',
    });
    return new ServerDatabase(admin, name, url.toString(), dataDir, catalogue, logger);
  }

  async user(name: string): Promise<number> {
    const row = await this.catalogue.db
      .insertInto('users')
      .values({
        username: name,
        password_hash: null,
        avatar_path: null,
        is_trusted: false,
        is_moderator: false,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async down(): Promise<void> {
    await this.admin.query(`ALTER DATABASE ${this.name} ALLOW_CONNECTIONS false`);
    await this.admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [
      this.name,
    ]);
  }

  async up(): Promise<void> {
    await this.admin.query(`ALTER DATABASE ${this.name} ALLOW_CONNECTIONS true`);
  }

  async dispose(): Promise<void> {
    await this.up().catch(() => {});
    await this.catalogue.close().catch(() => {});
    await this.admin.query(`DROP DATABASE IF EXISTS ${this.name} WITH (FORCE)`).catch(() => {});
    await this.admin.end();
    await fs.rm(this.dataDir, { recursive: true, force: true });
  }
}
