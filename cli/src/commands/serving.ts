// What `earshot serve` runs, loaded by its action (serve.ts holds only the command's definition, so
// that `earshot --help` loads none of the API, the catalogue or the workers). The API is imported
// by the processes that serve it: the primary of `--processes N` only migrates and supervises, and
// its workers start only once it has, so every CPU-second it spends delays a restarted host.
import cluster from 'node:cluster';
import type { MetricSources } from '@earshot/api';
import { type Catalogue, openCatalogue } from '@earshot/catalogue';
import { type Config, createLogger, type Logger, loadConfig } from '@earshot/common';
import type { Ffmpeg } from '@earshot/core';
import { type DemoAccount, ensureDemoAccount, logSimilarityFailure } from '@earshot/services';
import type { createJobRunner, JobRunner } from '@earshot/workers';
import { type PrimaryMessage, superviseWorkers, type WorkerMessage } from '../cluster.ts';
import { importDemoFixtures } from '../demo-import.ts';
import { onShutdown } from '../shutdown.ts';
import { VERSION } from '../version.ts';

export async function serve(options: { processes?: string }): Promise<void> {
  if (options.processes !== undefined && !/^([1-9]|[1-5][0-9]|6[0-4])$/.test(options.processes)) {
    process.stderr.write(
      `earshot: --processes must be a whole number from 1 to 64, not "${options.processes}"\n`,
    );
    process.exitCode = 2;
    return;
  }
  const config = loadConfig(
    options.processes ? { ...process.env, API_PROCESSES: options.processes } : undefined,
  );
  const logger = createLogger(config.LOG_LEVEL);
  if (cluster.isWorker) return serveWorker(config, logger);
  if (config.API_PROCESSES === 1) return serveOne(config, logger);
  // The embedded database is hosted by one process that the others reach through it: N processes
  // would all queue behind that host. And without Redis each process would count rate limits alone.
  const missing = [!config.DATABASE_URL && 'DATABASE_URL', !config.REDIS_URL && 'REDIS_URL'].filter(Boolean);
  if (missing.length > 0) {
    process.stderr.write(
      `earshot: --processes ${config.API_PROCESSES} needs ${missing.join(' and ')}: several processes share ` +
        'the PostgreSQL server (not the embedded database) and count rate limits in Redis. ' +
        'See docs/operations.md.\n',
    );
    process.exitCode = 2;
    return;
  }
  return servePrimary(config, logger);
}

/**
 * The API of one serving process (alone or a worker of `--processes N`): everything answers at once,
 * similar sounds a 503 until the snapshot or rebuild is loaded; the job runner feeds /metrics.
 */
async function apiDeps(
  config: Config,
  logger: Logger,
  catalogue: Catalogue,
  jobs: ReturnType<typeof createJobRunner>,
  ffmpeg?: Ffmpeg,
) {
  const { buildAppDeps } = await import('@earshot/api');
  const deps = await buildAppDeps({
    config,
    logger,
    catalogue,
    version: VERSION,
    queue: jobs.pipeline,
    similarityInBackground: true,
    ffmpeg,
  });
  deps.metrics.use(pipelineSources(jobs.runner));
  return deps;
}

/** One process: the HTTP API, and the in-process jobs when REDIS_URL is unset. */
async function serveOne(config: Config, logger: Logger): Promise<void> {
  const catalogue = await openCatalogue({ config, logger, role: 'server', description: 'earshot serve' });
  // Without Redis the jobs run in this process; with Redis this process only queues them. Both
  // run one Ffmpeg: its choice is logged once, and the jobs' ffprobe runs use the spawn helper too.
  const { serverFfmpeg, startServer } = await import('@earshot/api');
  const ffmpeg = serverFfmpeg(config, logger);
  const { createJobRunner } = await import('@earshot/workers');
  const jobs = createJobRunner({
    config,
    logger,
    catalogue,
    ffmpeg,
    onSimilarityVectors: () => refreshSoon(),
    catalogueExport: {}, // the export job runs where the jobs run: here without Redis
  });
  const deps = await apiDeps(config, logger, catalogue, jobs, ffmpeg);
  const refreshSoon = debounce(() => {
    deps.similarity.refresh().catch((err) => logSimilarityFailure(logger, err));
  }, 3000);
  await jobs.start();
  const server = await startServer(deps);
  await announce(config, logger, catalogue, server.origin, 1);
  await importDemo(config, logger, catalogue, jobs);

  onShutdown(logger, async () => {
    // In-flight requests get 10 s while the in-process jobs finish or are handed back (theirs too).
    await Promise.all([server.close(10_000), jobs.close(10_000)]);
    await deps.dispose();
    ffmpeg.close();
    await catalogue.close();
  });
}

/**
 * The primary of `--processes N`: the start-up work done once (migrations when it opens the
 * catalogue, the demo account and import), then N workers that serve HTTP on the one port. It
 * serves nothing itself and runs no jobs (with REDIS_URL, `earshot worker` consumes them).
 */
async function servePrimary(config: Config, logger: Logger): Promise<void> {
  const catalogue = await openCatalogue({
    config,
    logger,
    role: 'server',
    description: 'earshot serve (primary)',
  });
  // Its job runner only queues the demo import: a production primary (DEMO_IMPORT=0) loads no workers package.
  const jobs = config.DEMO_IMPORT
    ? (await import('@earshot/workers')).createJobRunner({ config, logger, catalogue })
    : undefined;
  const workers = superviseWorkers(config.API_PROCESSES, logger);
  let origin: string;
  try {
    origin = await workers.serving;
  } catch (err) {
    logger.error({ err }, 'the HTTP workers did not start');
    await workers.drain(10_000);
    await jobs?.close(0);
    await catalogue.close();
    process.exitCode = 1;
    return;
  }
  await announce(config, logger, catalogue, origin, config.API_PROCESSES);
  if (jobs) await importDemo(config, logger, catalogue, jobs);
  onShutdown(logger, async () => {
    // Each worker drains as one process does (10 s for requests in flight); 15 s before a kill.
    const clean = await workers.drain(15_000);
    await jobs?.close(0);
    await catalogue.close();
    if (!clean) throw new Error('an HTTP worker did not exit cleanly');
  });
}

/** A worker of `--processes N`: HTTP only; its primary tells it when to drain. */
async function serveWorker(config: Config, logger: Logger): Promise<void> {
  const catalogue = await openCatalogue({
    config,
    logger,
    role: 'server',
    description: 'earshot serve (worker)',
  });
  // REDIS_URL is set (the primary checked): this runner only queues, for the upload routes.
  const { createJobRunner } = await import('@earshot/workers');
  const jobs = createJobRunner({ config, logger, catalogue });
  const { startServer } = await import('@earshot/api');
  const deps = await apiDeps(config, logger, catalogue, jobs);
  // Ready when this process and its siblings are (the primary tells): see superviseWorkers.
  let hostReady = false;
  deps.readiness = { ...deps.readiness, processes: () => hostReady };
  const server = await startServer(deps);
  if (process.env.EARSHOT_SERVED_BY_HEADER === '1') {
    // Tests and benchmarks only: which worker answered (the ordering of listeners puts it first).
    server.server.prependListener('request', (_req, res) =>
      res.setHeader('X-Earshot-Pid', String(process.pid)),
    );
  }
  const drain = onShutdown(logger, async () => {
    await Promise.all([server.close(10_000), jobs.close(0)]);
    await deps.dispose();
    await catalogue.close();
  });
  process.on('message', (message: PrimaryMessage) => {
    if (message?.type === 'stop accepting') {
      server.stopAccepting();
      // After the cluster's own message that this worker stopped listening, on the same channel.
      const stopped: WorkerMessage = { type: 'stopped accepting' };
      process.send?.(stopped);
    }
    if (message?.type === 'drain') drain('drain from the primary');
    if (message?.type === 'host ready') hostReady = message.ready;
  });
  const ownReady = setInterval(() => {
    if (!deps.similarity.isReady()) return;
    clearInterval(ownReady);
    const ready: WorkerMessage = { type: 'ready' };
    process.send?.(ready);
  }, 100);
  ownReady.unref();
  const serving: WorkerMessage = { type: 'serving', origin: server.origin };
  process.send?.(serving);
}

/** The log line and the banner (`is serving on …`, which scripts and tests wait for). */
async function announce(
  config: Config,
  logger: Logger,
  catalogue: Catalogue,
  origin: string,
  processes: number,
): Promise<void> {
  const base = config.PUBLIC_URL?.replace(/\/+$/, '') ?? origin;
  const demo = await ensureDemoAccount(catalogue.db, base, config);
  logger.info(
    { origin, database: catalogue.kind, dataDir: config.dataDir, version: VERSION, processes },
    'earshot is serving',
  );
  const many = processes > 1 ? `, ${processes} processes` : '';
  process.stdout.write(
    [
      '',
      `earshot ${VERSION} is serving on ${origin} (database: ${catalogue.kind}, data: ${config.dataDir}${many})`,
      ...demoLines(demo, base),
      '',
    ].join('\n'),
  );
}

async function importDemo(
  config: Config,
  logger: Logger,
  catalogue: Catalogue,
  jobs: ReturnType<typeof createJobRunner>,
): Promise<void> {
  const demoQueued = await importDemoFixtures({
    db: catalogue.db,
    storage: jobs.storage,
    queue: jobs.pipeline,
    logger,
    config,
  });
  if (demoQueued > 0) {
    process.stdout.write(
      `Importing ${demoQueued} demo sounds in the background; they become searchable as they finish.\n`,
    );
  }
}

/** /metrics reads the queue's depths and recent job outcomes per stage from the job runner. */
function pipelineSources(runner: JobRunner): MetricSources {
  return {
    queue: async () => ({ ...(await runner.counts()) }),
    jobOutcomes: async () => {
      const [durations, failures] = await Promise.all([runner.recentDurations(), runner.recentFailures()]);
      const rows = Object.entries(durations).map(([stage, runs]) => ({
        stage,
        outcome: 'completed',
        count: runs.length,
      }));
      const failed = new Map<string, number>();
      for (const f of failures) failed.set(f.name, (failed.get(f.name) ?? 0) + 1);
      for (const [stage, count] of failed) rows.push({ stage, outcome: 'failed', count });
      return rows;
    },
  };
}

/**
 * What to say about the demo account. Its key is stored as a digest, so the full key can be
 * printed only on the start that created it; later starts name the masked key and how to get a
 * new one.
 */
function demoLines(demo: DemoAccount | undefined, base: string): string[] {
  const health = `  curl '${base}/health'`;
  if (!demo) return ['Try it:', health];
  if (demo.apiKey) {
    return [
      `Created the demo user "${demo.username}" with API key ${demo.apiKey} (shown this once: keep it)`,
      'Try it:',
      health,
      `  curl -H 'Authorization: Token ${demo.apiKey}' '${base}/apiv2/search/?query=drum'`,
    ];
  }
  return [
    `Demo user "${demo.username}": API key ${demo.maskedKey} (shown in full only when it was created;`,
    `  \`npx earshot credentials regenerate ${demo.clientId}\` prints a new one)`,
    'Try it:',
    health,
    `  curl -H 'Authorization: Token <API key>' '${base}/apiv2/search/?query=drum'`,
  ];
}

function debounce(fn: () => void, ms: number): () => void {
  let timer: NodeJS.Timeout | undefined;
  return () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(fn, ms);
    timer.unref();
  };
}
