import type { Command } from 'commander';

/** `earshot migrate`: apply pending schema migrations explicitly (every command also does it on open). */
export function register(program: Command): void {
  program
    .command('migrate')
    .description('apply pending database migrations (DATABASE_URL, else the embedded database in DATA_DIR)')
    .action(async () => {
      const [{ commandContext }, { migrate, openCatalogue }] = await Promise.all([
        import('./context.ts'),
        import('@earshot/catalogue'),
      ]);
      const { config, logger } = commandContext();
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
