import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';

const benchDir = fileURLToPath(new URL('../../../benchmarks/src/', import.meta.url));

function listBenchmarks(): string[] {
  if (!fs.existsSync(benchDir)) return [];
  return fs
    .readdirSync(benchDir)
    .filter((f) => f.endsWith('.bench.ts'))
    .map((f) => f.replace(/\.bench\.ts$/, ''))
    .sort();
}

export function register(program: Command): void {
  program
    .command('bench')
    .description('run a benchmark from benchmarks/src/<name>.bench.ts (no name: list them)')
    .argument('[name]', 'benchmark name')
    .allowUnknownOption(true)
    .argument('[args...]', 'arguments passed to the benchmark')
    .action((name: string | undefined, args: string[]) => {
      const names = listBenchmarks();
      if (!name) {
        process.stdout.write(`benchmarks: ${names.join(', ') || '(none)'}\n`);
        return;
      }
      if (!names.includes(name)) {
        process.stderr.write(`earshot: unknown benchmark "${name}"; known: ${names.join(', ')}\n`);
        process.exitCode = 2;
        return;
      }
      // A fresh process per benchmark, with the GC exposed for memory measurements.
      const result = spawnSync(
        process.execPath,
        ['--expose-gc', '--import', 'tsx', path.join(benchDir, `${name}.bench.ts`), ...args],
        { stdio: 'inherit' },
      );
      process.exitCode = result.status ?? 1;
    });
}
