import path from 'node:path';
import type { FixtureProgress } from '@earshot/fixtures';
import type { Command } from 'commander';

interface FixturesOptions {
  out?: string;
  long?: boolean;
  force?: boolean;
}

function formatBytes(bytes: number): string {
  return bytes >= 1 << 20 ? `${(bytes / (1 << 20)).toFixed(1)} MB` : `${(bytes / 1024).toFixed(1)} kB`;
}

/** One line per step on a terminal (overwritten in place), every 25th step otherwise (CI logs). */
function progressPrinter(): (p: FixtureProgress) => void {
  const tty = process.stderr.isTTY;
  return (p) => {
    const line = `[${p.done}/${p.total}] ${p.cached ? 'kept' : 'wrote'} ${p.name}`;
    if (tty) process.stderr.write(`\r\x1b[2K${line}${p.done === p.total ? '\n' : ''}`);
    else if (p.done % 25 === 0 || p.done === p.total) process.stderr.write(`${line}\n`);
  };
}

/** `earshot fixtures`: write the ground-truth fixture set and its manifest (cached when current). */
export function register(program: Command): void {
  program
    .command('fixtures')
    .description('generate the deterministic ground-truth audio fixtures and their manifest.json')
    .option('--out <dir>', "output folder (default: the fixtures package's generated/ folder)")
    .option('--long', 'also write the 10-minute file (about 100 MB)')
    .option('--force', 'regenerate every file even when the manifest is current')
    .action(async (options: FixturesOptions) => {
      const { fixturesDir, generateFixtures } = await import('@earshot/fixtures');
      const outDir = path.resolve(options.out ?? fixturesDir());
      const started = process.hrtime.bigint();
      let written = 0;
      const print = progressPrinter();
      const manifest = await generateFixtures({
        outDir,
        long: !!options.long,
        force: !!options.force,
        onProgress: (p) => {
          if (!p.cached) written++;
          print(p);
        },
      });
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const groups = new Map<string, { count: number; bytes: number }>();
      for (const e of manifest.fixtures) {
        const g = groups.get(e.group) ?? { count: 0, bytes: 0 };
        g.count++;
        g.bytes += e.filesize;
        groups.set(e.group, g);
      }
      const total = manifest.fixtures.reduce((sum, e) => sum + e.filesize, 0);
      const lines = [
        `fixtures in ${outDir} (generator ${manifest.generatorVersion})`,
        ...[...groups].map(
          ([group, g]) => `  ${group.padEnd(9)} ${String(g.count).padStart(4)}  ${formatBytes(g.bytes)}`,
        ),
        `  ${'total'.padEnd(9)} ${String(manifest.fixtures.length).padStart(4)}  ${formatBytes(total)}`,
        `${written} written, ${manifest.fixtures.length - written} kept, ${seconds.toFixed(1)} s, ` +
          `peak RSS ${formatBytes(process.resourceUsage().maxRSS * 1024)}`,
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
    });
}
