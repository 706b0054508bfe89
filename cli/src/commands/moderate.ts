import type { Command } from 'commander';

/** `earshot moderate list|approve ID…|reject ID…`. */
export function register(program: Command): void {
  const command = program.command('moderate').description('review sounds pending moderation');
  command
    .command('list')
    .description('list sounds pending moderation, oldest first')
    .option('--limit <n>', 'at most this many', '100')
    .action(async (options: { limit: string }) => {
      const [{ withCatalogue }, { listPendingModeration }] = await Promise.all([
        import('./context.ts'),
        import('@earshot/services'),
      ]);
      await withCatalogue('moderate list', async ({ db }) => {
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
      const [{ parseIds, withCatalogue }, { moderate }] = await Promise.all([
        import('./context.ts'),
        import('@earshot/services'),
      ]);
      const numeric = parseIds(ids);
      await withCatalogue(`moderate ${decision}`, async ({ db }) => {
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
