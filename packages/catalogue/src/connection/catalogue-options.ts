import type { Config, Logger } from '@earshot/common';
import type { CatalogueRole } from './data-folder-lock.ts';

/**
 * How to open the catalogue. A file of its own: open-catalogue.ts imports the embedded connection,
 * which reads these options too, so declared in either file the two would import each other.
 */
export interface OpenCatalogueOptions {
  config: Pick<Config, 'DATABASE_URL' | 'dataDir'>;
  logger: Logger;
  /** `server` (and `worker`) wait for a short `command` that hosts the folder to finish instead of depending on it. */
  role?: CatalogueRole;
  /** What to call this process in other processes' "waiting for" messages. */
  description?: string;
  /** Apply pending migrations on open (default true). */
  migrate?: boolean;
  /** Connections to a PostgreSQL server at most (default 10); the embedded database ignores it. */
  poolSize?: number;
  /** How long to wait for the data folder to become usable (default 120 s). */
  waitMs?: number;
  /** How long a hosting process waits on close for other processes to disconnect (default 60 s). */
  drainMs?: number;
  /**
   * How long a statement to the embedded database may go unanswered before its connection is closed
   * (default 120 s): maintenance that rewrites a large catalogue in one statement passes more.
   */
  answerMs?: number;
}
