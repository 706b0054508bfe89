import { ConfigError, configDocs, createLogger, EarshotError, loadConfig } from '@earshot/common';
import { Command, CommanderError } from 'commander';
import { registerCommands } from './commands/index.ts';

export function buildProgram(): Command {
  const program = new Command('earshot')
    .description('earshot: sound-sharing backend (analysis core, workers, HTTP API)')
    .showHelpAfterError()
    .exitOverride();
  registerCommands(program);
  const width = Math.max(...Object.keys(configDocs).map((k) => k.length));
  const env = Object.entries(configDocs)
    .map(([name, doc]) => `  ${name.padEnd(width)}  ${doc}`)
    .join('\n');
  program.addHelpText('after', `\nEnvironment variables:\n${env}\n`);
  return program;
}

export async function runCli(argv: string[]): Promise<void> {
  // `earshot analyze x | head`: a reader that stops early is not an error of ours.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
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
