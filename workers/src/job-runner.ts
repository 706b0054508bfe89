import type { Catalogue } from '@earshot/catalogue';
import type { Config, Logger } from '@earshot/common';
import { Ffmpeg } from '@earshot/core';
import { type ExportSchedule, refreshCatalogueExport, SoundStorage } from '@earshot/services';
import { type PipelineMetrics, pipelineMetrics } from './metrics.ts';
import { CatalogueStore, DEFAULT_EVENT_RETENTION } from './pipeline/catalogue-store.ts';
import { coreAnalyzer } from './pipeline/core-analyzer.ts';
import { CoreMediaTools, type SoundAnalyzer } from './pipeline/core-tools.ts';
import {
  CATALOGUE_EXPORT_JOB,
  CATEGORY_MODEL_JOB,
  EVENTS_UPKEEP_JOB,
  LIST_WALKS_UPKEEP_JOB,
  pipelineRegistry,
  type StagePolicy,
} from './pipeline/definitions.ts';
import type { StageDeps } from './pipeline/handlers.ts';
import { type LeaseOptions, soundLeaseGuard } from './pipeline/lease.ts';
import { pipelineHooks } from './pipeline/lifecycle.ts';
import { Pipeline } from './pipeline/pipeline.ts';
import type { StageName } from './pipeline/stages.ts';
import type { MediaTools } from './pipeline/tools.ts';
import { BullmqRunner } from './runners/bullmq.ts';
import { InProcessRunner } from './runners/in-process.ts';
import type { JobRunner } from './runners/types.ts';
import { createWebhookDeliveries, type WebhookDeliveries } from './webhooks/deliveries.ts';

const MIN_DEFAULT_LEASE_MS = 10_000;

export interface JobRunnerServiceOptions {
  config: Pick<Config, 'REDIS_URL' | 'dataDir' | 'WORKER_CONCURRENCY'> &
    Partial<
      Pick<
        Config,
        | 'UPLOAD_MAX_SECONDS'
        | 'FFMPEG_PATH'
        | 'FFPROBE_PATH'
        | 'WEBHOOK_ALLOW_PRIVATE'
        | 'WEBHOOK_TIMEOUT_MS'
        | 'WEBHOOK_DISABLE_AFTER_HOURS'
        | 'EVENTS_RETENTION_DAYS'
        | 'WEBHOOK_LOG_RETENTION_DAYS'
        | 'PUBLIC_URL'
        | 'EXPORT_SETTLE_MINUTES'
        | 'EXPORT_MAX_AGE_HOURS'
      >
    >;
  logger: Logger;
  catalogue: Catalogue;
  /**
   * With REDIS_URL: also consume jobs in this process (the API normally only produces; `earshot
   * worker` consumes). Without REDIS_URL the in-process runner always consumes.
   */
  runWorkers?: boolean;
  concurrency?: number;
  /** BullMQ key prefix (tests and benchmarks use their own). */
  queuePrefix?: string;
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  /**
   * How often a consuming process queues unfinished sounds nobody works on: lost by the queue, queued
   * by another process (`import --no-wait`), or left by a dead process whose lease expired.
   * Default 15 s with BullMQ, 3 s in-process.
   */
  reconcileIntervalMs?: number;
  /**
   * The sound's processing lease (default: `lockDurationMs`, at least 10 s, else 30 s; renewed every
   * third of it).
   */
  lease?: LeaseOptions;
  policies?: Partial<Record<StageName, Partial<StagePolicy>>>;
  analyzer?: SoundAnalyzer;
  /**
   * Each job uses about one core (no relayed second encoder), so that worker processes scale with
   * the cores they are given. Default: on for BullMQ (scaled by processes), off in-process.
   */
  corePerJob?: boolean;
  tools?: MediaTools;
  /**
   * The ffmpeg/ffprobe the jobs run. Default: one of the runner's own, FFMPEG_PATH/FFPROBE_PATH from
   * `config` (else PATH, else npm's), its choice logged on first use. A process that also serves the
   * API passes the one it serves with.
   */
  ffmpeg?: Ffmpeg;
  onSimilarityVectors?: StageDeps['onSimilarityVectors'];
  /** How often the reconciler queues the category model's retraining (default 30 s; it trains only when due). */
  categoryModelEveryMs?: number;
  /** How often the reconciler queues the events' upkeep (default hourly; the retention is in `config`). */
  eventUpkeepEveryMs?: number;
  /**
   * How often the reconciler queues the removal of expired cursor walks (default 10 minutes; how
   * long a walk is kept is the API's LIST_WALK_IDLE_MINUTES, written into each walk).
   */
  listWalkUpkeepEveryMs?: number;
  /**
   * The bulk export made by itself (`catalogue_export`), for long-running consumers (`earshot
   * worker`, `earshot serve`; absent: no such job, as in a CLI command's runner): the links' origin
   * (default PUBLIC_URL; none: no such job), when it is due (default from EXPORT_SETTLE_MINUTES and
   * EXPORT_MAX_AGE_HOURS; a max age of 0: no such job), how often the reconciler queues the check
   * (default 60 s) and the writer's lease (default 60 s).
   */
  catalogueExport?: { origin?: string; schedule?: ExportSchedule; checkEveryMs?: number; leaseMs?: number };
}

export interface JobRunnerService {
  readonly runner: JobRunner;
  readonly pipeline: Pipeline;
  readonly storage: SoundStorage;
  /** The webhooks' deliveries: started with the workers where this process consumes jobs. */
  readonly webhooks: WebhookDeliveries;
  /** Starts consuming (when this process consumes) and re-queues unfinished sounds. */
  start(): Promise<void>;
  metrics(): Promise<PipelineMetrics>;
  /** Running jobs get `graceMs` to finish; then they go back to the queue (BullMQ) or are resumed on the next start. */
  close(graceMs?: number): Promise<void>;
}

/**
 * The composition of the pipeline: the in-process runner when REDIS_URL is unset, BullMQ otherwise;
 * the same stage handlers and catalogue hooks either way.
 */
export function createJobRunner(options: JobRunnerServiceOptions): JobRunnerService {
  const { config, logger, catalogue } = options;
  const storage = new SoundStorage(config.dataDir);
  const store = new CatalogueStore(catalogue.db, storage, logger, {
    eventsDays: config.EVENTS_RETENTION_DAYS ?? DEFAULT_EVENT_RETENTION.eventsDays,
    deliveriesDays: config.WEBHOOK_LOG_RETENTION_DAYS ?? DEFAULT_EVENT_RETENTION.deliveriesDays,
  });
  const corePerJob = options.corePerJob ?? Boolean(config.REDIS_URL);
  const tools =
    options.tools ??
    new CoreMediaTools(options.analyzer ?? coreAnalyzer, logger, {
      corePerJob,
      maxDuration: config.UPLOAD_MAX_SECONDS,
      ffmpeg:
        options.ffmpeg ??
        new Ffmpeg({ ffmpegPath: config.FFMPEG_PATH, ffprobePath: config.FFPROBE_PATH, logger }),
    });
  const exporting = exportJob(options);
  const registry = pipelineRegistry(
    {
      store,
      storage,
      tools,
      onSimilarityVectors: options.onSimilarityVectors,
      exportCatalogue: exporting?.run,
    },
    options.policies,
  );
  const hooks = pipelineHooks(store);
  // A lease as long as BullMQ's lock, so a dead worker's sound is taken over as soon as its job is;
  // but never under 10 s: a renewal held up by a busy machine must not cost a live worker its lease
  // (its handler would be aborted mid-write; seen under full-suite load with a 2 s lock).
  const guard = soundLeaseGuard(
    catalogue.db,
    logger,
    options.lease ??
      (options.lockDurationMs ? { ttlMs: Math.max(options.lockDurationMs, MIN_DEFAULT_LEASE_MS) } : {}),
  );
  const runner: JobRunner = config.REDIS_URL
    ? new BullmqRunner({
        registry,
        hooks,
        guard,
        logger,
        redisUrl: config.REDIS_URL,
        prefix: options.queuePrefix,
        lockDurationMs: options.lockDurationMs,
        stalledIntervalMs: options.stalledIntervalMs,
      })
    : new InProcessRunner({ registry, hooks, guard, logger });
  // The category model's retraining is queued after every handover, and by the reconciler now and
  // then: labels may have arrived while no process ran (an upgrade, an import), or during a run.
  const pipeline = new Pipeline(store, runner, logger, [
    { name: CATEGORY_MODEL_JOB, everyMs: options.categoryModelEveryMs ?? 30_000 },
    { name: EVENTS_UPKEEP_JOB, everyMs: options.eventUpkeepEveryMs ?? 3_600_000 },
    { name: LIST_WALKS_UPKEEP_JOB, everyMs: options.listWalkUpkeepEveryMs ?? 600_000 },
    ...(exporting ? [{ name: CATALOGUE_EXPORT_JOB, everyMs: exporting.checkEveryMs }] : []),
  ]);
  const consumes = runner.kind === 'in-process' || options.runWorkers === true;
  const concurrency = options.concurrency ?? config.WORKER_CONCURRENCY;
  const webhooks = createWebhookDeliveries({ config, logger, catalogue, queuePrefix: options.queuePrefix });

  return {
    runner,
    pipeline,
    storage,
    webhooks,
    async start() {
      if (!consumes) return;
      await webhooks.start();
      await runner.startWorkers(concurrency);
      logger.info({ runner: runner.kind, concurrency }, 'pipeline: workers started');
      if (runner.kind === 'in-process') await pipeline.reconcile();
      // Continuous in both runners: what another process queued or abandoned is picked up here too.
      pipeline.startReconciler(options.reconcileIntervalMs ?? (runner.kind === 'bullmq' ? 15_000 : 3_000));
    },
    metrics: () => pipelineMetrics(runner),
    close: async (graceMs) => {
      await Promise.all([pipeline.close(graceMs), webhooks.close()]);
    },
  };
}

/**
 * The export job's work, when this runner makes exports: a fixed job id keeps one check queued or
 * running at a time on the queue, the catalogue's export lease one writer across every host, and
 * the writer's temp file and renames leave the previous export served if it dies.
 */
function exportJob(
  options: JobRunnerServiceOptions,
): { run: (signal: AbortSignal) => Promise<void>; checkEveryMs: number } | undefined {
  const { config, catalogue, logger } = options;
  if (!options.catalogueExport) return undefined;
  const origin = (options.catalogueExport?.origin ?? config.PUBLIC_URL)?.replace(/\/+$/, '');
  const schedule = options.catalogueExport?.schedule ?? {
    settleMs: (config.EXPORT_SETTLE_MINUTES ?? 10) * 60_000,
    maxAgeMs: (config.EXPORT_MAX_AGE_HOURS ?? 6) * 3_600_000,
  };
  if (!origin || schedule.maxAgeMs === 0) return undefined;
  return {
    run: async (signal) => {
      await refreshCatalogueExport(catalogue.db, config.dataDir, origin, {
        schedule,
        signal,
        logger,
        leaseMs: options.catalogueExport?.leaseMs,
      });
    },
    checkEveryMs: options.catalogueExport?.checkEveryMs ?? 60_000,
  };
}
