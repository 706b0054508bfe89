import type { Command } from 'commander';

/**
 * `earshot index snapshot`: loads every similarity space (from its snapshot brought up to date, or
 * rebuilt from the catalogue) and writes fresh snapshots to `<DATA_DIR>/similarity`, so the next
 * API start loads them instead of rebuilding. One writer at a time across processes (the
 * catalogue's advisory lock); when another holds it, this says so and exits 1.
 */
export function register(program: Command): void {
  const index = program.command('index').description('similarity index maintenance');
  index
    .command('snapshot')
    .description('write a snapshot of each similarity space into the data folder')
    .action(async () => {
      const [{ openCatalogue }, { createLogger, loadConfig }, { SimilarityState, similaritySnapshotDir }] =
        await Promise.all([
          import('@earshot/catalogue'),
          import('@earshot/common'),
          import('@earshot/services'),
        ]);
      const config = loadConfig();
      const logger = createLogger(config.LOG_LEVEL);
      const catalogue = await openCatalogue({
        config,
        logger,
        role: 'command',
        description: 'index snapshot',
      });
      const dir = similaritySnapshotDir(config.dataDir);
      const state = new SimilarityState(catalogue.db, logger, { snapshotDir: dir });
      try {
        const started = Date.now();
        await state.refresh();
        const wrote = await state.writeSnapshots();
        if (!wrote) {
          process.stderr.write('another process is writing the similarity snapshots; nothing written\n');
          process.exitCode = 1;
          return;
        }
        for (const [name, idx] of state.indexes) {
          process.stdout.write(`${name}\t${idx.size} sounds\n`);
        }
        process.stdout.write(
          `snapshots written to ${dir} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
        );
      } finally {
        await state.close();
        await catalogue.close();
      }
    });
}
