import { openCatalogue } from '@earshot/catalogue';
import { type Config, createLogger, type Logger, loadConfig, ValidationError } from '@earshot/common';
import { listPendingModeration, moderate } from '@earshot/services';
import type { Command } from 'commander';

/** `earshot moderate list|approve ID…|reject ID…`. */
export function register(program: Command): void {
  const command = program.command('moderate').description('review sounds pending moderation');
  command
    .command('list')
    .description('list sounds pending moderation, oldest first')
    .option('--limit <n>', 'at most this many', '100')
    .action(async (options: { limit: string }) => {
      await withCatalogue('moderate list', async (db) => {
        const entries = await listPendingModeration(db, Number(options.limit));
        if (entries.length === 0) {
          process.stdout.write('no sounds pending moderation\n');
          return;
        }
        for (const e of entries) {
          process.stdout.write(`${e.id}\t${e.processingState}\t${e.username}\t${e.name}\n`);
        }
      });
    });
  for (const decision of ['approve', 'reject'] as const) {
    const sub = command
      .command(decision)
      .description(`${decision} sounds pending moderation`)
      .argument('<ids...>', 'sound ids');
    if (decision === 'reject')
      sub.option('--reason <text>', 'why, kept with each sound (as on the moderation page)');
    sub.action(async (ids: string[], options: { reason?: string }) => {
      const numeric = parseIds(ids);
      await withCatalogue(`moderate ${decision}`, async (db) => {
        const changed = await moderate(db, numeric, decision, { reason: options.reason });
        const skipped = numeric.filter((id) => !changed.includes(id));
        process.stdout.write(
          `${decision === 'approve' ? 'approved' : 'rejected'}: ${changed.join(' ') || 'none'}\n`,
        );
        if (skipped.length)
          process.stdout.write(`not pending moderation (unchanged): ${skipped.join(' ')}\n`);
      });
    });
  }
}

export function parseIds(ids: string[]): number[] {
  return ids.map((raw) => {
    const id = Number(raw);
    if (!Number.isSafeInteger(id) || id <= 0) throw new ValidationError(`"${raw}" is not a sound id.`);
    return id;
  });
}

/** Opens the catalogue the configuration names for one command, and closes it afterwards. */
export async function withCatalogue(
  description: string,
  work: (
    db: Awaited<ReturnType<typeof openCatalogue>>['db'],
    context: { config: Config; logger: Logger },
  ) => Promise<void>,
): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL);
  const catalogue = await openCatalogue({ config, logger, role: 'command', description });
  try {
    await work(catalogue.db, { config, logger });
  } finally {
    await catalogue.close();
  }
}
