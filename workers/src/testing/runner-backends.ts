import type { Catalogue } from '@earshot/catalogue';
import type { Logger } from '@earshot/common';
import { pipelineTestEnv } from './pipeline-env.ts';
import { ServerDatabase } from './server-database.ts';

/** A catalogue and data folder a job-runner test runs on, whichever backend holds it. */
export interface RunnerBackend {
  dataDir: string;
  catalogue: Catalogue;
  logger: Logger;
  user(name: string): Promise<number>;
  dispose(): Promise<void>;
}

/**
 * Both runners on their usual database: the in-process runner on the embedded one (`earshot serve`
 * alone), BullMQ workers on the PostgreSQL server (a deployment), for `describe.each`: the label, the
 * Redis URL the runner uses (none: in-process), how to open the backend, and whether it can run here.
 */
export function runnerBackends(
  name: string,
  redisUrl: string | undefined,
  postgresUrl: string | undefined,
): Array<[string, string | undefined, () => Promise<RunnerBackend>, boolean]> {
  return [
    ['in-process runner, embedded PGlite', undefined, () => pipelineTestEnv(name), true],
    [
      'BullMQ runner, PostgreSQL server',
      redisUrl,
      async () => ServerDatabase.create(postgresUrl ?? '', name),
      !!redisUrl && !!postgresUrl,
    ],
  ];
}
