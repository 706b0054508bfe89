import type { Command } from 'commander';
import { VERSION } from '../version.ts';
import * as bench from './bench.ts';
import * as credentials from './credentials.ts';
import * as fixtures from './fixtures.ts';
import * as migrate from './migrate.ts';
import * as processCommand from './process.ts';
import * as serve from './serve.ts';

/** Each command lives in its own file (commands/<name>.ts exporting register) and is listed here. */
export function registerCommands(program: Command): void {
  program
    .command('version')
    .description('print the version')
    .action(() => {
      process.stdout.write(`earshot ${VERSION}\n`);
    });
  bench.register(program);
  credentials.register(program);
  fixtures.register(program);
  migrate.register(program);
  processCommand.register(program);
  serve.register(program);
}
