import type { Command } from 'commander';

/** `earshot categories retrain`: the category model's retraining, now, as the `category_model` job does it. */
export function register(program: Command): void {
  const categories = program
    .command('categories')
    .description("the model that estimates a sound's category when its uploader gave none");
  categories
    .command('retrain')
    .description(
      'retrain the category model when labels grew enough (--force: anyway), then estimate again the categories uploaders did not give',
    )
    .option('--force', 'retrain even if few labels arrived since the last training')
    .action(async (options: { force?: boolean }) => {
      const [{ withCatalogue }, { retrainCategoryModel }] = await Promise.all([
        import('./context.ts'),
        import('@earshot/services'),
      ]);
      await withCatalogue('categories retrain', async (catalogue, { logger }) => {
        const result = await retrainCategoryModel(catalogue.db, { force: options.force, logger });
        process.stdout.write(
          result.trained
            ? `trained on ${result.labelledSounds} labelled sounds (labels: ${result.labels.join(', ')}); ${result.changed} estimated categories changed\n`
            : result.notTrained === 'too few labels'
              ? `not trained: ${result.labelledSounds} labelled sounds; two labels of at least three sounds each are needed\n`
              : `not trained: ${result.labelledSounds} labelled sounds, too few new since the last training (--force to retrain)\n`,
        );
      });
    });
}
