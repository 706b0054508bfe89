import type { Command } from 'commander';

/**
 * `earshot sounds delete ID… [--user NAME]`: deletes sounds and everything derived from them
 * (files, search entries, descriptors, similarity vectors). The contract has no DELETE resource;
 * this is the owner's (or an administrator's) way. With --user only that user's sounds go.
 */
export function register(program: Command): void {
  const sounds = program.command('sounds').description('manage sounds');
  sounds
    .command('delete')
    .description('delete sounds with their files, search entries, descriptors and similarity vectors')
    .argument('<ids...>', 'sound ids')
    .option('--user <name>', 'only if the sound belongs to this user (its uploader deleting it)')
    .action(async (ids: string[], options: { user?: string }) => {
      const [
        { commandContext, parseIds },
        { openCatalogue },
        { EarshotError },
        { removeSound, SoundIntake },
        { createJobRunner },
      ] = await Promise.all([
        import('./context.ts'),
        import('@earshot/catalogue'),
        import('@earshot/common'),
        import('@earshot/services'),
        import('@earshot/workers'),
      ]);
      const { config, logger } = commandContext();
      const catalogue = await openCatalogue({
        config,
        logger,
        role: 'command',
        description: 'sounds delete',
      });
      // Not started: only its queue is asked whether a job of the sound waits or runs.
      const jobs = createJobRunner({ config, logger, catalogue });
      try {
        const userId = options.user
          ? await new SoundIntake(catalogue.db, jobs.storage).userIdByName(options.user)
          : undefined;
        for (const id of parseIds(ids)) {
          try {
            await removeSound(catalogue.db, jobs.storage, jobs.pipeline, id, { userId });
            process.stdout.write(`deleted sound ${id}\n`);
          } catch (err) {
            if (!(err instanceof EarshotError)) throw err;
            process.stderr.write(`sound ${id}: ${err.message}\n`);
            process.exitCode = 2;
          }
        }
      } finally {
        await jobs.close(10_000);
        await catalogue.close();
      }
    });
}
