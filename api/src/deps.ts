import type { Config, Logger } from '@earshot/common';

/** What the HTTP layer needs from the rest of the system; the server wires the real ones. */
export interface AppDeps {
  config: Config;
  logger: Logger;
  version: string;
  /** Resolves when the database answers a trivial query. */
  checkDatabase: () => Promise<void>;
}
