import { type Command, InvalidArgumentError } from 'commander';

/**
 * `earshot similar FILE [--space S] [--n 15]`: the catalogue's sounds closest to an example, against
 * the data folder (DATA_DIR) or DATABASE_URL. FILE is an analysis file (`.json`: any layout earshot
 * writes, e.g. from `earshot analyze`) or an audio clip, whose first 30 s are analyzed. Ranked by
 * the API's search engine over the similarity indexes of the data folder's snapshots; a space
 * without one is built once and its snapshot written for the next call.
 */
export function register(program: Command): void {
  program
    .command('similar')
    .description('list the sounds closest to an analysis file (.json) or an audio clip (first 30 s)')
    .argument('<file>', 'an analysis file (.json) or an audio file')
    .option(
      '--space <name>',
      'similarity space (default: the default space, or descriptors when the file lacks what it needs)',
    )
    .option('--n <count>', 'how many sounds', parseCount, 15)
    .action(async (file: string, options: { space?: string; n: number }) => {
      const [{ withCatalogue }, { searchByExample, similaritySnapshotDir }, { Ffmpeg }] = await Promise.all([
        import('./context.ts'),
        import('@earshot/services'),
        import('@earshot/core/media'),
      ]);
      await withCatalogue('similar', async ({ db }, { config, logger }) => {
        const result = await searchByExample(db, logger, file, {
          space: options.space,
          n: options.n,
          snapshotDir: similaritySnapshotDir(config.dataDir),
          ffmpeg: new Ffmpeg({ ffmpegPath: config.FFMPEG_PATH, ffprobePath: config.FFPROBE_PATH, logger }),
        });
        if (result.clip?.truncated) {
          process.stderr.write(
            `the clip is ${result.clip.duration.toFixed(1)} s long; only its first ${result.clip.analyzedSeconds.toFixed(0)} s were analyzed\n`,
          );
        }
        process.stderr.write(`compared by: ${result.comparedBy}\n`);
        if (result.matches.length === 0) process.stdout.write('no analyzed sounds in the catalogue\n');
        for (const m of result.matches) {
          process.stdout.write(`${m.id}\t${m.score.toFixed(4)}\t${m.username}\t${m.name}\n`);
        }
      });
    });
}

function parseCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1000)
    throw new InvalidArgumentError('it must be a whole number from 1 to 1000.');
  return n;
}
