import type { Command } from 'commander';

/** Each command lives in its own file and registers itself here. */
export function registerCommands(program: Command): void {
  program
    .command('version')
    .description('print the version')
    .action(() => {
      process.stdout.write('earshot 0.1.0\n');
    });
}
