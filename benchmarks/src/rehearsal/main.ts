// `npx earshot rehearse cluster --minutes N [--json FILE] [--sounds N] [--short]`: the cluster
// rehearsal as a command (cli/src/commands/rehearse.ts runs this file). Exit code 0 when every
// check is met, 1 when one is not, 2 when the rehearsal could not run.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { arg } from '../args.ts';
import { DEFAULT_HOST_CPUS, rehearseCluster } from './cluster.ts';
import { details, passed, table } from './report.ts';

const RESULTS = fileURLToPath(new URL('../../results/cluster.md', import.meta.url));

const minutes = Number(arg('minutes', '3'));
const sounds = Number(arg('sounds', '10000'));
const jsonFile = arg('json', '');
const short = process.argv.includes('--short');
const hostCpusArg = arg('host-cpus', String(DEFAULT_HOST_CPUS));
const hostCpus = hostCpusArg === 'none' ? null : Number(hostCpusArg);
if (
  !(minutes > 0 && minutes <= 60) ||
  !(sounds >= 100 && sounds <= 1_000_000) ||
  !(hostCpus === null || (hostCpus >= 0.05 && hostCpus <= 64))
) {
  process.stderr.write(
    'earshot rehearse cluster: --minutes must be from 0 to 60, --sounds from 100 to 1000000, --host-cpus from 0.05 to 64 or none\n',
  );
  process.exit(2);
}

try {
  const figures = await rehearseCluster({
    minutes,
    sounds,
    short,
    scalingRoundS: short ? 5 : 15,
    hostCpus,
    say: (line) => process.stdout.write(`${line}\n`),
  });
  const report = `${table(figures)}\n\n${details(figures)}\n`;
  process.stdout.write(`\n${report}`);
  if (jsonFile) fs.writeFileSync(path.resolve(jsonFile), `${JSON.stringify(figures, null, 2)}\n`);
  if (!short) {
    const command = `npx earshot rehearse cluster --minutes ${minutes}${sounds !== 10000 ? ` --sounds ${sounds}` : ''}${hostCpusArg !== String(DEFAULT_HOST_CPUS) ? ` --host-cpus ${hostCpusArg}` : ''}`;
    // Newest run first; the earlier runs stay below it (the machine is shared: runs differ).
    const earlier = fs.existsSync(RESULTS) ? fs.readFileSync(RESULTS, 'utf8') : '';
    const previousRuns = earlier.includes('\n## ') ? earlier.slice(earlier.indexOf('\n## ') + 1) : '';
    fs.writeFileSync(
      RESULTS,
      [
        '# Cluster rehearsal (issue 34)',
        '',
        'Seven network namespaces on one 2-core machine (PostgreSQL, Redis, two API hosts running',
        '`earshot serve --processes 2`, two worker hosts, haproxy), started with `deploy/run` and',
        "deploy/env's files; a mixed load through the balancer while hosts are killed and cut off.",
        'README "Running at scale" explains the deployment and the capacity model.',
        '',
        `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC: \`${command}\``,
        '',
        report,
        previousRuns,
      ].join('\n'),
    );
    process.stdout.write(`written to ${path.relative(process.cwd(), RESULTS)}\n`);
  }
  process.exitCode = passed(figures) ? 0 : 1;
} catch (err) {
  process.stderr.write(`earshot rehearse cluster: ${(err as Error).stack ?? err}\n`);
  process.exitCode = 2;
}
