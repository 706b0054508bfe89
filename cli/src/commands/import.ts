import type { Command } from 'commander';

/** The command's flags as commander parses them (the services' `ImportOptions` is what they become). */
interface ImportCommandOptions {
  user: string;
  pack?: string;
  approve?: boolean;
  wait: boolean;
  concurrency?: string;
}

/**
 * `earshot import PATH… --user NAME`: bulk import with a progress bar. Waits until every file is
 * processed or failed (with REDIS_URL the workers may run anywhere; without it, here).
 */
export function register(program: Command): void {
  program
    .command('import')
    .description('import audio files or folders as sounds (description from a sidecar .json or metadata.csv)')
    .argument('<paths...>', 'files or folders')
    .requiredOption('--user <name>', 'the uploader (see `earshot users create`)')
    .option('--pack <name>', 'put the sounds in this pack (created if missing)')
    .option('--approve', 'approve the sounds at once (skip moderation)')
    .option('--no-wait', 'only queue the sounds; do not wait for processing')
    .option('-c, --concurrency <n>', 'without REDIS_URL: jobs run at once here (default WORKER_CONCURRENCY)')
    .action(async (paths: string[], options: ImportCommandOptions) => {
      const [
        { commandContext },
        { openCatalogue, retryWhileUnavailable },
        { ValidationError },
        { collectFiles, queueImports, SoundIntake, waitForSounds },
        { createJobRunner },
        { SingleBar },
      ] = await Promise.all([
        import('./context.ts'),
        import('@earshot/catalogue'),
        import('@earshot/common'),
        import('@earshot/services'),
        import('@earshot/workers'),
        import('cli-progress'),
      ]);
      const { config, logger } = commandContext();
      const files = await collectFiles(paths);
      if (files.length === 0) throw new ValidationError('No audio files found in the given paths.');
      const catalogue = await openCatalogue({ config, logger, role: 'command', description: 'import' });
      const service = createJobRunner({
        config,
        logger,
        catalogue,
        concurrency: options.concurrency ? Number(options.concurrency) : undefined,
      });
      const bar = new SingleBar({
        format: ' {phase} [{bar}] {value}/{total} | failed {failed}',
        stream: process.stderr,
        hideCursor: true,
      });
      try {
        const intake = new SoundIntake(catalogue.db, service.storage);
        // The database's host may die while we work (another process on the data folder hosting
        // it): the pool then finds or becomes the new host, and what failed with it is done again.
        const retry = {
          onRetry: (err: unknown) =>
            logger.warn({ err }, 'import: the catalogue could not be reached; trying again'),
        };
        const userId = await retryWhileUnavailable(() => intake.userIdByName(options.user), retry);
        // Processing starts while the rest is still being queued.
        if (options.wait) await service.start();
        bar.start(files.length, 0, { phase: 'queueing  ', failed: 0 });
        let n = 0;
        const queued = await queueImports(intake, service.pipeline, files, {
          userId,
          packName: options.pack,
          approve: options.approve,
          onQueued: () => bar.update(++n),
          retry,
        });
        if (!options.wait) {
          bar.stop();
          process.stdout.write(
            `queued ${queued.length} sound(s): ${queued.map((q) => q.soundId).join(' ')}\n`,
          );
          if (!config.REDIS_URL)
            process.stdout.write('without REDIS_URL they are processed on the next `npm start` or import\n');
          return;
        }
        bar.update(0, { phase: 'processing', failed: 0 });
        const outcomes = await waitForSounds(
          catalogue.db,
          queued,
          (done, failed) => bar.update(done, { failed }),
          { retry },
        );
        bar.stop();
        const failed = outcomes.filter((o) => o.state === 'Failed');
        process.stdout.write(`processed: ${outcomes.length - failed.length}, failed: ${failed.length}\n`);
        for (const f of failed)
          process.stdout.write(`  failed ${f.file} (sound ${f.soundId}): ${f.reason}\n`);
        if (failed.length) process.exitCode = 1;
      } finally {
        bar.stop();
        await service.close(30_000);
        await catalogue.close();
      }
    });
}
