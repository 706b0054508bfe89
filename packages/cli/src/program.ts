import { ConfigError, createLogger, EarshotError, loadConfig } from '@earshot/common';
import { Command, CommanderError } from 'commander';
import { registerCommands } from './commands/index.ts';

export function buildProgram(): Command {
  const program = new Command('earshot')
    .description('earshot: sound-sharing backend (analysis core, workers, HTTP API)')
    .showHelpAfterError()
    .exitOverride();
  registerCommands(program);
  return program;
}

export async function runCli(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode;
      return;
    }
    if (err instanceof ConfigError || err instanceof EarshotError) {
      process.stderr.write(`earshot: ${err.message}\n`);
      process.exitCode = 2;
      return;
    }
    createLogger().fatal({ err }, 'command failed');
    process.exitCode = 1;
  }
}

export { loadConfig };
