import { fileURLToPath } from 'node:url';
import { type Child, startChild } from './child.ts';

const cliMain = new URL('../../../cli/src/main.ts', import.meta.url);

/** `earshot worker` in its own process, as an operator would start it. */
export function startCliWorker(
  env: { dataDir: string; redisUrl: string; prefix: string },
  extraArgs: string[] = [],
): Child {
  return startChild(
    cliMain,
    ['worker', '--queue-prefix', env.prefix, '--lock-ms', '2000', '--reconcile-ms', '1000', ...extraArgs],
    { DATA_DIR: env.dataDir, REDIS_URL: env.redisUrl, LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn' },
  );
}

export { fileURLToPath };
