// What the commands that work on the catalogue share. Loaded by their actions (`await
// import('./context.ts')`), never by a command's definition: it brings in the configuration, the
// logger and the catalogue, which `earshot --help` and `earshot --version` have no use for.
import { type Catalogue, openCatalogue } from '@earshot/catalogue';
import { type Config, createLogger, type Logger, loadConfig, ValidationError } from '@earshot/common';

/** The configuration, and a logger that keeps a one-off command quiet at the default level. */
export function commandContext(): { config: Config; logger: Logger } {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL);
  return { config, logger };
}

/** Opens the catalogue the configuration names for one command, and closes it afterwards. */
export async function withCatalogue(
  description: string,
  work: (catalogue: Catalogue, context: { config: Config; logger: Logger }) => Promise<void>,
): Promise<void> {
  const context = commandContext();
  const catalogue = await openCatalogue({ ...context, role: 'command', description });
  try {
    await work(catalogue, context);
  } finally {
    await catalogue.close();
  }
}

export function parseIds(ids: string[]): number[] {
  return ids.map((raw) => {
    const id = Number(raw);
    if (!Number.isSafeInteger(id) || id <= 0) throw new ValidationError(`"${raw}" is not a sound id.`);
    return id;
  });
}
