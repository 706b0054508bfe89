import type { Command } from 'commander';

/** `earshot reprocess ID…|--failed|--stale`: process sounds again without a new upload. */
export function register(program: Command): void {
  program
    .command('reprocess')
    .description(
      'process sounds again from the first stage (by id, every failed one, or every one an older analysis described)',
    )
    .argument('[ids...]', 'sound ids')
    .option('--failed', 'every sound whose processing failed')
    .option('--stale', 'every sound whose descriptors an earlier version of the analysis made')
    .option(
      '--no-wait',
      'only queue (with REDIS_URL); without Redis the sounds are processed on the next start',
    )
    .action(async (ids: string[], options: { failed?: boolean; stale?: boolean; wait: boolean }) => {
      const [
        { commandContext, parseIds },
        { openCatalogue },
        { EarshotError, ValidationError },
        { reprocess, reprocessFailed, reprocessStale, waitForSounds },
        { createJobRunner },
      ] = await Promise.all([
        import('./context.ts'),
        import('@earshot/catalogue'),
        import('@earshot/common'),
        import('@earshot/services'),
        import('@earshot/workers'),
      ]);
      if (!options.failed && !options.stale && ids.length === 0)
        throw new ValidationError('Give sound ids, --failed or --stale.');
      const { config, logger } = commandContext();
      const catalogue = await openCatalogue({ config, logger, role: 'command', description: 'reprocess' });
      const service = createJobRunner({ config, logger, catalogue });
      try {
        const queued: number[] = [];
        for (const id of parseIds(ids)) {
          try {
            await reprocess(catalogue.db, service.pipeline, id);
            queued.push(id);
          } catch (err) {
            if (!(err instanceof EarshotError)) throw err;
            process.stderr.write(`sound ${id}: ${err.message}\n`);
          }
        }
        if (options.failed) queued.push(...(await reprocessFailed(catalogue.db, service.pipeline)));
        if (options.stale) queued.push(...(await reprocessStale(catalogue.db, service.pipeline)));
        process.stdout.write(`queued for processing: ${queued.join(' ') || 'none'}\n`);
        if (!options.wait || queued.length === 0) return;
        // Without Redis this process is the worker.
        await service.start();
        const outcomes = await waitForSounds(
          catalogue.db,
          queued.map((soundId) => ({ file: String(soundId), soundId })),
        );
        for (const o of outcomes) {
          process.stdout.write(`${o.soundId}\t${o.state}${o.reason ? `\t${o.reason}` : ''}\n`);
        }
        if (outcomes.some((o) => o.state === 'Failed')) process.exitCode = 1;
      } finally {
        await service.close(30_000);
        await catalogue.close();
      }
    });
}
