import fs from 'node:fs/promises';
import { analyzeFile, stopEssentiaWorker } from '@earshot/core';
import type { Command } from 'commander';

interface AnalyzeCommandOptions {
  variant: string;
  frames?: string;
  timings?: boolean;
}

/**
 * `earshot analyze FILE`: prints the variant-B descriptor dictionary as JSON; `--variant A` prints the
 * dotted statistics tree instead; `--frames PATH` also writes the analysis frames file.
 */
export function register(program: Command): void {
  program
    .command('analyze')
    .description('analyse a sound file and print its content descriptors as JSON')
    .argument('<file>', 'the audio file')
    .option('--variant <A|B>', 'B: the flat descriptor dictionary; A: the dotted tree with statistics', 'B')
    .option('--frames <path>', 'write the per-frame analysis file here')
    .option('--timings', 'print milliseconds per descriptor group on stderr')
    .action(async (file: string, options: AnalyzeCommandOptions) => {
      const variant = options.variant.toUpperCase();
      if (variant !== 'A' && variant !== 'B')
        throw new Error(`--variant must be A or B, not ${options.variant}`);
      try {
        const result = await analyzeFile(file, { frames: Boolean(options.frames) });
        if (options.frames && result.frames)
          await fs.writeFile(options.frames, JSON.stringify(result.frames));
        const output = variant === 'A' ? result.variantA : result.variantB;
        process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
        if (options.timings) process.stderr.write(`${JSON.stringify(result.timings)}\n`);
      } finally {
        await stopEssentiaWorker();
      }
    });
}
