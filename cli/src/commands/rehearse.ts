import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * `earshot rehearse cluster`: the multi-host rehearsal of issue 34 (benchmarks/src/rehearsal). Like a
 * benchmark, it brings the build up to date and runs in a process of its own; the hosts it starts
 * run the compiled packages through deploy/run.
 */
export function register(program: Command): void {
  const rehearse = program.command('rehearse').description('rehearse a deployment on this machine');
  rehearse
    .command('cluster')
    .description(
      'a cluster in network namespaces (PostgreSQL, Redis, 2 API hosts, 2 worker hosts, haproxy; root only): mixed load, hosts killed and cut off, then the checks',
    )
    .option('--minutes <n>', 'length of the mixed load with the faults', '3')
    .option('--json <file>', 'also write the figures as JSON')
    .option('--sounds <n>', 'synthetic sounds in the catalogue', '10000')
    .option('--short', 'one fault (an API host killed) instead of four; results/cluster.md is not written')
    .option(
      '--host-cpus <cores>',
      'CPU quota of each API and worker host (a cgroup), or "none" for the whole machine (default 0.5)',
    )
    .action(
      (options: { minutes: string; json?: string; sounds: string; short?: boolean; hostCpus?: string }) => {
        const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: repoRoot, stdio: 'inherit' });
        if (build.status !== 0) {
          process.exitCode = build.status ?? 1;
          return;
        }
        const args = ['--minutes', options.minutes, '--sounds', options.sounds];
        if (options.json) args.push('--json', path.resolve(options.json));
        if (options.short) args.push('--short');
        if (options.hostCpus) args.push('--host-cpus', options.hostCpus);
        const result = spawnSync(
          process.execPath,
          ['--import', 'tsx', path.join(repoRoot, 'benchmarks/src/rehearsal/main.ts'), ...args],
          { stdio: 'inherit' },
        );
        process.exitCode = result.status ?? 1;
      },
    );
}
