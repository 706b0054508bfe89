import type { Command } from 'commander';

/** `earshot reprocess ID…|--failed`: process sounds again without a new upload. */
export function register(program: Command): void {
  program
    .command('reprocess')
    .description('process sounds again from the first stage (by id, or every failed one)')
    .argument('[ids...]', 'sound ids')
    .option('--failed', 'every sound whose processing failed')
    .option(
      '--no-wait',
      'only queue (with REDIS_URL); without Redis the sounds are processed on the next start',
    )
    .action(async (ids: string[], options: { failed?: boolean; wait: boolean }) => {
      const [
        { commandContext, parseIds },
        { openCatalogue },
        { EarshotError, ValidationError },
        { reprocess, reprocessFailed, waitForSounds },
        { createJobRunner },
      ] = await Promise.all([
        import('./context.ts'),
        import('@earshot/catalogue'),
        import('@earshot/common'),
        import('@earshot/services'),
        import('@earshot/workers'),
      ]);
      if (!options.failed && ids.length === 0) throw new ValidationError('Give sound ids or --failed.');
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
