import { type Command, InvalidArgumentError, Option } from 'commander';

interface AnalyzeCommandOptions {
  variant: 'A' | 'B';
  frames?: string;
  /** One of the option's choices, checked by commander. */
  rhythm: 'earshot' | 'essentia';
  timings?: boolean;
}

/**
 * `earshot analyze FILE`: prints the variant-B descriptor dictionary as JSON; `--variant A` prints the
 * dotted statistics tree instead; `--frames PATH` also writes the analysis frames file; `--rhythm essentia`
 * tracks beats with essentia.js's RhythmExtractor2013 (the reference) instead of our own tracker.
 */
export function register(program: Command): void {
  program
    .command('analyze')
    .description('analyze a sound file and print its content descriptors as JSON')
    .argument('<file>', 'the audio file')
    .option(
      '--variant <A|B>',
      'B: the flat descriptor dictionary; A: the dotted tree with statistics',
      parseVariant,
      'B',
    )
    .option('--frames <path>', 'write the per-frame analysis file here')
    .addOption(
      new Option('--rhythm <tracker>', 'beat tracker: ours, or essentia.js RhythmExtractor2013')
        .choices(['earshot', 'essentia'])
        .default('earshot'),
    )
    .option('--timings', 'print milliseconds per descriptor group on stderr')
    .action(async (file: string, options: AnalyzeCommandOptions) => {
      const [{ createLogger, loadConfig }, { analyzeFile, Ffmpeg, stopEssentiaWorker, writeFramesFile }] =
        await Promise.all([import('@earshot/common'), import('@earshot/core/descriptors')]);
      const config = loadConfig();
      const logger = createLogger(config.LOG_LEVEL);
      const ffmpeg = new Ffmpeg({ ffmpegPath: config.FFMPEG_PATH, ffprobePath: config.FFPROBE_PATH, logger });
      try {
        const result = await analyzeFile(file, {
          frames: Boolean(options.frames),
          rhythm: options.rhythm,
          ffmpeg,
        });
        if (options.frames && result.frames) await writeFramesFile(result.frames, options.frames);
        const output = options.variant === 'A' ? result.variantA : result.variantB;
        process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
        if (options.timings) process.stderr.write(`${JSON.stringify(result.timings)}\n`);
      } finally {
        await stopEssentiaWorker();
      }
    });
}

function parseVariant(value: string): 'A' | 'B' {
  const variant = value.toUpperCase();
  if (variant !== 'A' && variant !== 'B') throw new InvalidArgumentError('it must be A or B.');
  return variant;
}
