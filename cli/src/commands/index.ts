import type { Command } from 'commander';
import { VERSION } from '../version.ts';
import * as analyze from './analyze.ts';
import * as bench from './bench.ts';
import * as categories from './categories.ts';
import * as credentials from './credentials.ts';
import * as exportCommand from './export.ts';
import * as fixtures from './fixtures.ts';
import * as importCommand from './import.ts';
import * as indexSnapshot from './index-snapshot.ts';
import * as migrate from './migrate.ts';
import * as moderate from './moderate.ts';
import * as processCommand from './process.ts';
import * as rehearse from './rehearse.ts';
import * as reprocess from './reprocess.ts';
import * as serve from './serve.ts';
import * as similar from './similar.ts';
import * as sounds from './sounds.ts';
import * as users from './users.ts';
import * as worker from './worker.ts';

/**
 * Each command lives in its own file (commands/<name>.ts exporting register) and is listed here.
 * A command file defines the command and nothing heavier: its action imports the packages it uses
 * (`await import(...)`, types through `import type`), so listing every command costs little.
 */
export function registerCommands(program: Command): void {
  program
    .command('version')
    .description('print the version')
    .action(() => {
      process.stdout.write(`earshot ${VERSION}\n`);
    });
  analyze.register(program);
  bench.register(program);
  categories.register(program);
  credentials.register(program);
  exportCommand.register(program);
  fixtures.register(program);
  migrate.register(program);
  processCommand.register(program);
  serve.register(program);
  similar.register(program);
  sounds.register(program);
  importCommand.register(program);
  indexSnapshot.register(program);
  moderate.register(program);
  rehearse.register(program);
  reprocess.register(program);
  users.register(program);
  worker.register(program);
}
