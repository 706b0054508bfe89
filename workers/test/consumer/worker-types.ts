// Type-checked (never run) in a strict TypeScript project that installed @earshot/workers from its
// tarball: an operator's own start script, from the declaration files of the workers and of every
// package under them (skipLibCheck off), so a type they reference but do not declare fails here.
import {
  type createJobRunner,
  type JobRunnerService,
  NoRedisError,
  runWorkerProcess,
  type WorkerProcessOptions,
} from '@earshot/workers';

export async function start(stop: AbortSignal): Promise<string | undefined> {
  const options: WorkerProcessOptions = { concurrency: 2, graceSeconds: 30, stop };
  // @ts-expect-error concurrency is a number
  const wrong: WorkerProcessOptions = { concurrency: 'two' };
  void wrong;
  try {
    await runWorkerProcess(options);
    return undefined;
  } catch (err) {
    if (err instanceof NoRedisError) return err.code;
    throw err;
  }
}

export type Composition = typeof createJobRunner;
export type Service = JobRunnerService;
