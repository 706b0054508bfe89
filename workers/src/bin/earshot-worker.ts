#!/usr/bin/env node
// `earshot-worker`: the command an operator runs on a processing machine after
// `npm install @earshot/workers`. Configuration comes from the environment, as for `earshot serve`.
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, configDocs, createLogger, EarshotError } from '@earshot/common';
import { runWorkerProcess, writeWorkerStats } from '../worker-process.ts';

/** The variables a worker reads; the API's own stay out of its help. */
const WORKER_VARIABLES = [
  'REDIS_URL',
  'DATABASE_URL',
  'DATA_DIR',
  'WORKER_CONCURRENCY',
  'UPLOAD_MAX_SECONDS',
  'LOG_LEVEL',
  'FFMPEG_PATH',
  'FFPROBE_PATH',
] as const;

const USAGE = `Usage: earshot-worker [options]

Processes uploaded sounds (previews, images, descriptors, similarity vectors): takes jobs from the
shared Redis queue, reads and writes the shared catalogue and the sound files, until SIGTERM/SIGINT.

Options:
  -c, --concurrency <n>   jobs run at once in this process (default WORKER_CONCURRENCY)
  --grace-seconds <s>     on SIGTERM, how long running jobs get to finish (default 60)
  --stats                 print queue depth, job durations and recent failures as JSON, then exit
  --prometheus            with --stats: print the Prometheus text format instead
  --queue-prefix <prefix> BullMQ key prefix (default: the one the API produces into)
  -v, --version           print the version
  -h, --help              print this help

Environment variables:
${WORKER_VARIABLES.map((name) => `  ${name.padEnd(20)}  ${configDocs[name]}`).join('\n')}
`;

/** A command line this program cannot run (exit status 2, like a bad variable). */
class UsageError extends Error {}

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      concurrency: { type: 'string', short: 'c' },
      'grace-seconds': { type: 'string' },
      stats: { type: 'boolean' },
      prometheus: { type: 'boolean' },
      'queue-prefix': { type: 'string' },
      'lock-ms': { type: 'string' },
      'reconcile-ms': { type: 'string' },
      version: { type: 'boolean', short: 'v' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (values.version) {
    const manifest = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    process.stdout.write(`${manifest.version}\n`);
    return;
  }
  if (values.stats) {
    await writeWorkerStats({ prometheus: values.prometheus, queuePrefix: values['queue-prefix'] });
    return;
  }
  await runWorkerProcess({
    concurrency: wholeNumber('--concurrency', values.concurrency, 1, 64),
    graceSeconds: wholeNumber('--grace-seconds', values['grace-seconds'], 0, 86_400),
    queuePrefix: values['queue-prefix'],
    lockMs: wholeNumber('--lock-ms', values['lock-ms'], 100, 3_600_000),
    reconcileMs: wholeNumber('--reconcile-ms', values['reconcile-ms'], 100, 3_600_000),
  });
}

function wholeNumber(flag: string, text: string | undefined, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, not "${text}"`);
  }
  return value;
}

try {
  await main(process.argv.slice(2));
} catch (err) {
  const argvError = (err as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS_');
  if (err instanceof UsageError || argvError) {
    process.stderr.write(`earshot-worker: ${(err as Error).message} (see earshot-worker --help)\n`);
    process.exitCode = 2;
  } else if (err instanceof ConfigError || err instanceof EarshotError) {
    process.stderr.write(`earshot-worker: ${err.message}\n`);
    process.exitCode = 2;
  } else {
    createLogger().fatal({ err }, 'earshot-worker failed');
    process.exitCode = 1;
  }
}
