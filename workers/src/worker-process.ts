import { openCatalogue } from '@earshot/catalogue';
import { createLogger, EarshotError, loadConfig } from '@earshot/common';
import { createJobRunner } from './job-runner.ts';
import { bullmqQueueMetrics, metricsAsPrometheus } from './metrics.ts';

/** Where a worker process reports (its logs go to pino on stderr). */
export interface WorkerOutput {
  write(text: string): unknown;
}

export interface WorkerProcessOptions {
  /** Jobs run at once in this process (default WORKER_CONCURRENCY). */
  concurrency?: number;
  /** BullMQ key prefix (default: the one `earshot serve` produces into). */
  queuePrefix?: string;
  /** Job lock duration: how soon a dead worker's jobs move on to another one. */
  lockMs?: number;
  /** How often unfinished sounds missing from the queue are queued again. */
  reconcileMs?: number;
  /** On SIGTERM/SIGINT, how long running jobs get to finish (default 60 s). */
  graceSeconds?: number;
  /** The environment the configuration is read from (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Where the ready line goes (default stdout). */
  out?: WorkerOutput;
  /** Stops the worker as SIGTERM does (default: SIGTERM and SIGINT of this process). */
  stop?: AbortSignal;
}

/** A worker consumes the shared queue: without REDIS_URL there is nothing to consume. */
export class NoRedisError extends EarshotError {
  constructor() {
    super(
      'REDIS_URL is not set. A worker consumes the shared BullMQ queue (with DATABASE_URL for the shared catalogue); without Redis, `earshot serve` processes sounds in-process.',
      'no_redis',
    );
  }
}

/**
 * A worker process (`earshot-worker`, `earshot worker`): BullMQ workers on REDIS_URL against the
 * catalogue (DATABASE_URL, else the embedded one in DATA_DIR) and the sound files in DATA_DIR,
 * until SIGTERM or SIGINT. Prints `worker <pid> ready` once it takes jobs; resolves after the
 * running jobs finished (or the grace time ran out) and everything is closed.
 */
export async function runWorkerProcess(options: WorkerProcessOptions = {}): Promise<void> {
  const config = loadConfig(options.env);
  if (!config.REDIS_URL) throw new NoRedisError();
  const logger = createLogger(config.LOG_LEVEL);
  const out = options.out ?? process.stdout;
  const catalogue = await openCatalogue({ config, logger, role: 'worker', description: 'worker' });
  const service = createJobRunner({
    config,
    logger,
    catalogue,
    runWorkers: true,
    concurrency: options.concurrency,
    queuePrefix: options.queuePrefix,
    lockDurationMs: options.lockMs,
    stalledIntervalMs: options.lockMs ? Math.max(250, options.lockMs / 2) : undefined,
    reconcileIntervalMs: options.reconcileMs,
    catalogueExport: {},
  });
  // Listen before starting: a signal that arrives while the queue connects still stops cleanly.
  const stopped = stopRequest(options.stop);
  try {
    await service.start();
    out.write(
      `worker ${process.pid} ready (concurrency ${options.concurrency ?? config.WORKER_CONCURRENCY})\n`,
    );
    const reason = await stopped.promise;
    logger.info({ reason }, 'worker: stopping; running jobs get time to finish');
  } finally {
    stopped.dispose();
    await service.close((options.graceSeconds ?? 60) * 1000);
    await catalogue.close();
  }
  logger.info('worker: stopped');
}

export interface WorkerStatsOptions {
  /** The Prometheus text format instead of JSON. */
  prometheus?: boolean;
  queuePrefix?: string;
  env?: NodeJS.ProcessEnv;
  out?: WorkerOutput;
}

/** Writes the shared queue's depths, job durations and recent failures (JSON or Prometheus). */
export async function writeWorkerStats(options: WorkerStatsOptions = {}): Promise<void> {
  const config = loadConfig(options.env);
  if (!config.REDIS_URL) throw new NoRedisError();
  const metrics = await bullmqQueueMetrics({
    redisUrl: config.REDIS_URL,
    prefix: options.queuePrefix,
    logger: createLogger(config.LOG_LEVEL),
  });
  (options.out ?? process.stdout).write(
    options.prometheus ? metricsAsPrometheus(metrics) : `${JSON.stringify(metrics, null, 2)}\n`,
  );
}

function stopRequest(signal: AbortSignal | undefined): { promise: Promise<string>; dispose(): void } {
  let dispose = () => {};
  const promise = new Promise<string>((resolve) => {
    if (signal) {
      if (signal.aborted) return resolve('stop requested');
      const onAbort = () => resolve('stop requested');
      signal.addEventListener('abort', onAbort, { once: true });
      dispose = () => signal.removeEventListener('abort', onAbort);
      return;
    }
    const onTerm = () => resolve('SIGTERM');
    const onInt = () => resolve('SIGINT');
    process.once('SIGTERM', onTerm);
    process.once('SIGINT', onInt);
    dispose = () => {
      process.off('SIGTERM', onTerm);
      process.off('SIGINT', onInt);
    };
  });
  return { promise, dispose };
}
