import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const benchDir = path.join(repoRoot, 'benchmarks/src/');

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
      // Benchmarks measure the compiled packages, as production runs them: bring the build up to date
      // first (a no-op in a fraction of a second when it is).
      const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: repoRoot, stdio: 'inherit' });
      if (build.status !== 0) {
        process.exitCode = build.status ?? 1;
        return;
      }
      // A fresh process per benchmark, with the GC exposed for memory measurements. The harness itself
      // is TypeScript (tsx); the packages it imports resolve to their built files.
      const result = spawnSync(
        process.execPath,
        ['--expose-gc', '--import', 'tsx', path.join(benchDir, `${name}.bench.ts`), ...args],
        { stdio: 'inherit' },
      );
      process.exitCode = result.status ?? 1;
    });
}
