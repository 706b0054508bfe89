import { buildAppDeps, type MetricSources, startServer } from '@earshot/api';
import { openCatalogue } from '@earshot/catalogue';
import { createLogger, loadConfig } from '@earshot/common';
import { type DemoAccount, ensureDemoAccount, importDemoFixtures } from '@earshot/services';
import { createJobRunner, type JobRunner } from '@earshot/workers';
import type { Command } from 'commander';
import { onShutdown } from '../shutdown.ts';
import { VERSION } from '../version.ts';

/** `earshot serve` (what `npm start` runs): the HTTP API, and the in-process jobs when REDIS_URL is unset. */
export function register(program: Command): void {
  program
    .command('serve')
    .description('serve the HTTP API (and run the processing jobs in-process when REDIS_URL is unset)')
    .action(serve);
}

async function serve(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL);
  const catalogue = await openCatalogue({ config, logger, role: 'server', description: 'earshot serve' });
  // Without Redis the jobs run in this process; with Redis this process only queues them.
  const jobs = createJobRunner({
    config,
    logger,
    catalogue,
    onSimilarityVectors: () => refreshSoon(),
  });
  const deps = await buildAppDeps({
    config,
    logger,
    catalogue,
    version: VERSION,
    queue: jobs.pipeline,
    // Everything else answers at once; similar sounds answer 503 until the indexes are loaded.
    similarityInBackground: true,
  });
  const refreshSoon = debounce(() => {
    deps.similarity.refresh().catch((err) => logger.error({ err }, 'similarity refresh failed'));
  }, 3000);
  await jobs.start();
  deps.metrics.use(pipelineSources(jobs.runner));
  const server = await startServer(deps);
  const base = config.PUBLIC_URL?.replace(/\/+$/, '') ?? server.origin;
  const demo = await ensureDemoAccount(catalogue.db, base, config);
  logger.info(
    { origin: server.origin, database: catalogue.kind, dataDir: config.dataDir, version: VERSION },
    'earshot is serving',
  );
  process.stdout.write(
    [
      '',
      `earshot ${VERSION} is serving on ${server.origin} (database: ${catalogue.kind}, data: ${config.dataDir})`,
      ...demoLines(demo, base),
      '',
    ].join('\n'),
  );

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

  onShutdown(logger, async () => {
    // In-flight requests get 10 s while the in-process jobs finish or are handed back (theirs too).
    await Promise.all([server.close(10_000), jobs.close(10_000)]);
    await deps.dispose();
    await catalogue.close();
  });
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
