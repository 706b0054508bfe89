import { migrate, openCatalogue } from '@earshot/catalogue';
import { createLogger, loadConfig } from '@earshot/common';
import type { Command } from 'commander';

/** `earshot migrate`: apply pending schema migrations explicitly (every command also does it on open). */
export function register(program: Command): void {
  program
    .command('migrate')
    .description('apply pending database migrations (DATABASE_URL, else the embedded database in DATA_DIR)')
    .action(async () => {
      const config = loadConfig();
      const logger = createLogger(config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL);
      const catalogue = await openCatalogue({
        config,
        logger,
        role: 'command',
        description: 'migrate',
        migrate: false,
      });
      try {
        const { applied } = await migrate(catalogue);
        const where =
          catalogue.kind === 'postgres'
            ? 'the PostgreSQL server'
            : `the embedded database in ${config.dataDir}`;
        process.stdout.write(
          applied.length
            ? `applied ${applied.length} migration(s) to ${where}:\n${applied.map((name) => `  ${name}\n`).join('')}`
            : `${where} is up to date\n`,
        );
      } finally {
        await catalogue.close();
      }
    });
}
