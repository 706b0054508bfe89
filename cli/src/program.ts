import { Command, CommanderError } from 'commander';
import { registerCommands } from './commands/index.ts';
import { VERSION } from './version.ts';

/**
 * The program and its commands. Only their definitions load here: each command's action imports
 * what it uses when it runs, so `earshot --version` and `--help` start without the packages. The
 * environment variables listed after the root help come from the configuration's docs, which
 * `runCli` loads first when that help may be shown (`envHelp`).
 */
export function buildProgram(envHelp: () => string = () => ''): Command {
  const program = new Command('earshot')
    .description('earshot: sound-sharing backend (analysis core, workers, HTTP API)')
    .version(`earshot ${VERSION}`, '-V, --version', 'print the version')
    .showHelpAfterError()
    .exitOverride();
  registerCommands(program);
  program.addHelpText('after', envHelp);
  return program;
}

/**
 * Whether commander may print the root help for these arguments: no command, a root option other
 * than the version, `help` without a command, or a word that is no command (the error shows the
 * root help). A command's own help (`earshot serve --help`) does not list the environment.
 */
function mayShowRootHelp(program: Command, args: string[]): boolean {
  const names = new Set(program.commands.flatMap((c) => [c.name(), ...c.aliases()]));
  const [first, second] = args;
  if (first === undefined) return true;
  if (first === '-V' || first === '--version') return false;
  if (first === 'help') return second === undefined || !names.has(second);
  return !names.has(first);
}

async function environmentHelp(): Promise<string> {
  const { configDocs } = await import('@earshot/common');
  const width = Math.max(...Object.keys(configDocs).map((k) => k.length));
  const env = Object.entries(configDocs)
    .map(([name, doc]) => `  ${name.padEnd(width)}  ${doc}`)
    .join('\n');
  return `\nEnvironment variables:\n${env}\n`;
}

export async function runCli(argv: string[]): Promise<void> {
  // `earshot analyze x | head`: a reader that stops early is not an error of ours.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
  let envText = '';
  const program = buildProgram(() => envText);
  if (mayShowRootHelp(program, argv.slice(2))) envText = await environmentHelp();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode;
      return;
    }
    const { ConfigError, createLogger, EarshotError } = await import('@earshot/common');
    if (err instanceof ConfigError || err instanceof EarshotError) {
      process.stderr.write(`earshot: ${err.message}\n`);
      process.exitCode = 2;
      return;
    }
    createLogger().fatal({ err }, 'command failed');
    process.exitCode = 1;
  }
}
