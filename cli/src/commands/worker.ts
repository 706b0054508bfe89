import { type Command, Option } from 'commander';

interface WorkerOptions {
  concurrency?: string;
  stats?: boolean;
  prometheus?: boolean;
  queuePrefix?: string;
  lockMs?: string;
  reconcileMs?: string;
  graceSeconds: string;
}

/** `earshot worker`: BullMQ workers on REDIS_URL, until SIGTERM/SIGINT. `--stats`: print metrics and exit. */
export function register(program: Command): void {
  program
    .command('worker')
    .description('process uploaded sounds: run pipeline workers against REDIS_URL (or print queue metrics)')
    .option('-c, --concurrency <n>', 'jobs run at once in this process (default WORKER_CONCURRENCY)')
    .option('--stats', 'print queue depth, job durations and recent failures as JSON, then exit')
    .option('--prometheus', 'with --stats: print the Prometheus text format instead')
    .option('--grace-seconds <s>', 'on SIGTERM, how long running jobs get to finish', '60')
    .addOption(hidden('--queue-prefix <prefix>', 'BullMQ key prefix (tests and benchmarks)'))
    .addOption(hidden('--lock-ms <ms>', 'job lock duration; a dead worker’s jobs move on after it'))
    .addOption(
      hidden('--reconcile-ms <ms>', 'how often unfinished sounds missing from the queue are queued again'),
    )
    .action(async (options: WorkerOptions) => {
      const [
        { openCatalogue },
        { createLogger, EarshotError, loadConfig },
        { bullmqQueueMetrics, createJobRunner, metricsAsPrometheus },
      ] = await Promise.all([
        import('@earshot/catalogue'),
        import('@earshot/common'),
        import('@earshot/workers'),
      ]);
      const config = loadConfig();
      if (!config.REDIS_URL) {
        throw new EarshotError(
          'REDIS_URL is not set. `earshot worker` consumes the BullMQ queue; without Redis, `npm start` processes sounds in-process.',
          'no_redis',
        );
      }
      const logger = createLogger(config.LOG_LEVEL);
      if (options.stats) {
        const metrics = await bullmqQueueMetrics({
          redisUrl: config.REDIS_URL,
          prefix: options.queuePrefix,
          logger,
        });
        process.stdout.write(
          options.prometheus ? metricsAsPrometheus(metrics) : `${JSON.stringify(metrics, null, 2)}\n`,
        );
        return;
      }
      const catalogue = await openCatalogue({ config, logger, role: 'worker', description: 'worker' });
      const lockMs = options.lockMs ? Number(options.lockMs) : undefined;
      const service = createJobRunner({
        config,
        logger,
        catalogue,
        runWorkers: true,
        concurrency: options.concurrency ? Number(options.concurrency) : undefined,
        queuePrefix: options.queuePrefix,
        lockDurationMs: lockMs,
        stalledIntervalMs: lockMs ? Math.max(250, lockMs / 2) : undefined,
        reconcileIntervalMs: options.reconcileMs ? Number(options.reconcileMs) : undefined,
      });
      await service.start();
      process.stdout.write(
        `worker ${process.pid} ready (concurrency ${options.concurrency ?? config.WORKER_CONCURRENCY})\n`,
      );
      await new Promise<void>((resolve) => {
        const stop = (signal: string) => {
          logger.info({ signal }, 'worker: stopping; running jobs get time to finish');
          resolve();
        };
        process.once('SIGTERM', () => stop('SIGTERM'));
        process.once('SIGINT', () => stop('SIGINT'));
      });
      await service.close(Number(options.graceSeconds) * 1000);
      await catalogue.close();
      logger.info('worker: stopped');
    });
}

function hidden(flags: string, description: string): Option {
  return new Option(flags, description).hideHelp();
}
