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
      // The worker process itself lives in @earshot/workers, which also installs it as `earshot-worker`.
      const { runWorkerProcess, writeWorkerStats } = await import('@earshot/workers');
      if (options.stats) {
        await writeWorkerStats({ prometheus: options.prometheus, queuePrefix: options.queuePrefix });
        return;
      }
      await runWorkerProcess({
        concurrency: options.concurrency ? Number(options.concurrency) : undefined,
        queuePrefix: options.queuePrefix,
        lockMs: options.lockMs ? Number(options.lockMs) : undefined,
        reconcileMs: options.reconcileMs ? Number(options.reconcileMs) : undefined,
        graceSeconds: Number(options.graceSeconds),
      });
    });
}

function hidden(flags: string, description: string): Option {
  return new Option(flags, description).hideHelp();
}
