import path from 'node:path';
import type { Command } from 'commander';
import { ACCEPTED_TYPES } from './choices.ts';

interface ProcessCommandOptions {
  out: string;
  name?: string;
  timeout?: string;
}

/** `earshot process FILE --out DIR`: the media stage of one file, with a JSON summary on stdout. */
export function register(program: Command): void {
  program
    .command('process')
    .description(
      'probe a sound file and write its four previews, four images, peaks and analysis files into a folder',
    )
    .argument('<file>', `the audio file (${ACCEPTED_TYPES.join(', ')})`)
    .requiredOption('-o, --out <dir>', 'output folder (created if missing)')
    .option('--name <filename>', "the file's original name, when FILE is stored under another one")
    .option('--timeout <seconds>', 'stop ffmpeg after this many seconds')
    .action(async (file: string, options: ProcessCommandOptions) => {
      const [{ createLogger, loadConfig }, { analysisHook, Ffmpeg, processFile, stopEssentiaWorker }] =
        await Promise.all([import('@earshot/common'), import('@earshot/core')]);
      const timeoutMs = options.timeout ? Number(options.timeout) * 1000 : undefined;
      const config = loadConfig();
      const logger = createLogger(config.LOG_LEVEL);
      const ffmpeg = new Ffmpeg({ ffmpegPath: config.FFMPEG_PATH, ffprobePath: config.FFPROBE_PATH, logger });
      // The analysis hook also writes the descriptor files (descriptors, analysis_stats, analysis_frames).
      const result = await processFile(file, options.out, {
        fileName: options.name,
        timeoutMs,
        analyze: analysisHook,
        ffmpeg,
      }).finally(stopEssentiaWorker);
      const { raw: _raw, ...probe } = result.probe;
      const summary = {
        input: path.resolve(file),
        outDir: path.resolve(options.out),
        probe,
        files: result.files,
        decodedDuration: round(result.decodedDuration, 6),
        timingsMs: Object.fromEntries(Object.entries(result.timings).map(([k, v]) => [k, round(v, 1)])),
      };
      process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    });
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
