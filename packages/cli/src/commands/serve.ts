import { startServer } from '@earshot/api';
import { openCatalogue } from '@earshot/catalogue';
import { createLogger, loadConfig } from '@earshot/common';
import type { Command } from 'commander';
import { sql } from 'kysely';
import { ensureDemoAccount } from '../demo-account.ts';
import { onShutdown } from '../shutdown.ts';
import { VERSION } from '../version.ts';

/** `earshot serve` (what `npm start` runs): the HTTP API, and the in-process jobs when REDIS_URL is unset. */
export function register(program: Command): void {
  program
    .command('serve')
    .description('serve the HTTP API (and run the processing jobs in-process when REDIS_URL is unset)')
    .action(serve);
}

async function serve(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL);
  const catalogue = await openCatalogue({ config, logger, role: 'server', description: 'earshot serve' });
  const server = await startServer({
    config,
    logger,
    version: VERSION,
    checkDatabase: async () => {
      await sql`select 1`.execute(catalogue.db);
    },
  });
  const base = config.PUBLIC_URL?.replace(/\/+$/, '') ?? server.origin;
  const demo = await ensureDemoAccount(catalogue.db, base);
  logger.info(
    { origin: server.origin, database: catalogue.kind, dataDir: config.dataDir, version: VERSION },
    'earshot is serving',
  );
  process.stdout.write(
    [
      '',
      `earshot ${VERSION} is serving on ${server.origin} (database: ${catalogue.kind}, data: ${config.dataDir})`,
      `${demo.created ? 'Created the demo user' : 'Demo user'} "${demo.username}" with API key ${demo.apiKey}`,
      'Try it:',
      `  curl '${base}/health'`,
      `  curl -H 'Authorization: Token ${demo.apiKey}' '${base}/apiv2/search/?query=drum'`,
      '',
    ].join('\n'),
  );

  onShutdown(logger, async () => {
    await server.close();
    await catalogue.close();
  });
}
