import type { Command } from 'commander';

/**
 * `earshot export [--origin URL]`: writes the public catalogue as gzipped JSON Lines (one sound a
 * line, with its page, licence deed and credit line) into DATA_DIR/exports and makes it the export
 * `/apiv2/export/` serves. Links are absolute: `--origin`, else PUBLIC_URL. The workers also make
 * it by themselves once changes settle (EXPORT_SETTLE_MINUTES, EXPORT_MAX_AGE_HOURS); one writer at
 * a time, this command included.
 */
export function register(program: Command): void {
  program
    .command('export')
    .description('write the public catalogue as gzipped JSON Lines (the export /apiv2/export/ serves)')
    .option('--origin <url>', 'the base of the links in the export (default: PUBLIC_URL)')
    .action(async (options: { origin?: string }) => {
      const [{ withCatalogue }, { runCatalogueExport }, { ValidationError }] = await Promise.all([
        import('./context.ts'),
        import('@earshot/services'),
        import('@earshot/common'),
      ]);
      await withCatalogue('export', async ({ db }, { config }) => {
        const origin = (options.origin ?? config.PUBLIC_URL)?.replace(/\/+$/, '');
        if (!origin || !/^https?:\/\/[^/]+$/.test(origin))
          throw new ValidationError('give the base of the links: --origin https://host (or set PUBLIC_URL).');
        // Under the export's lease: refused (409) while a worker's export job is writing one.
        const info = await runCatalogueExport(db, config.dataDir, origin, {
          onProgress: (n) => process.stderr.write(`\rexported ${n} sounds`),
        });
        process.stderr.write('\n');
        process.stdout.write(
          `${info.sounds} sounds written to ${info.file} (${info.created}); changes since: ${info.cursor}\n`,
        );
      });
    });
}
