import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Catalogue, openCatalogue } from '@earshot/catalogue';
import { createLogger, type Logger } from '@earshot/common';

export interface PipelineTestEnv {
  dataDir: string;
  catalogue: Catalogue;
  logger: Logger;
  /** Creates a user and returns its id. */
  user(name: string, flags?: { trusted?: boolean; moderator?: boolean }): Promise<number>;
  dispose(): Promise<void>;
}

/** A fresh data folder with its own embedded catalogue (real PGlite, real migrations). */
export async function pipelineTestEnv(label: string): Promise<PipelineTestEnv> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), `earshot-${label}-`));
  const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
  const catalogue = await openCatalogue({
    config: { dataDir, DATABASE_URL: undefined },
    logger,
    role: 'server',
  });
  return {
    dataDir,
    catalogue,
    logger,
    async user(name, flags = {}) {
      const row = await catalogue.db
        .insertInto('users')
        .values({
          username: name,
          password_hash: null,
          avatar_path: null,
          is_trusted: flags.trusted ?? false,
          is_moderator: flags.moderator ?? false,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },
    async dispose() {
      await catalogue.close();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}
