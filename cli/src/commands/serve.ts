import type { Command } from 'commander';

/** `earshot serve` (what `npm start` runs): the HTTP API, and the in-process jobs when REDIS_URL is unset. */
export function register(program: Command): void {
  program
    .command('serve')
    .description('serve the HTTP API (and run the processing jobs in-process when REDIS_URL is unset)')
    .option(
      '--processes <n>',
      'processes serving HTTP on the one port (default API_PROCESSES, 1); more than 1 needs DATABASE_URL and REDIS_URL',
    )
    .action(async (options: { processes?: string }) => {
      const { serve } = await import('./serving.ts');
      await serve(options);
    });
}
