// @earshot/workers: the job registry, the stage handlers, the two runners (in-process, BullMQ),
// the pipeline that implements the services' ProcessingQueue, and the worker process that
// `earshot-worker` (and `earshot worker`) runs. The use cases (accounts, intake, moderation,
// reprocessing) live in @earshot/services.

export { createJobRunner, type JobRunnerService, type JobRunnerServiceOptions } from './job-runner.ts';
export { PermanentJobError } from './jobs/errors.ts';
export type { JobHooks } from './jobs/execute.ts';
export { type JobContext, type JobDefinition, JobRegistry, jobIdFor } from './jobs/registry.ts';
export { bullmqQueueMetrics, metricsAsPrometheus, type PipelineMetrics, pipelineMetrics } from './metrics.ts';
export { CatalogueStore } from './pipeline/catalogue-store.ts';
export type { SoundAnalyzer } from './pipeline/core-tools.ts';
export { DEFAULT_STAGE_POLICIES } from './pipeline/definitions.ts';
export { Pipeline } from './pipeline/pipeline.ts';
export { STAGES, type StageName, stageLabel } from './pipeline/stages.ts';
export { BullmqRunner, DEFAULT_QUEUE_PREFIX, type JobReturn } from './runners/bullmq.ts';
export { InProcessRunner } from './runners/in-process.ts';
export type { JobRunner, QueueCounts } from './runners/types.ts';
export {
  createWebhookDeliveries,
  WEBHOOK_QUEUE,
  type WebhookDeliveries,
  type WebhookDeliveriesOptions,
} from './webhooks/deliveries.ts';
export {
  NoRedisError,
  runWorkerProcess,
  type WorkerOutput,
  type WorkerProcessOptions,
  type WorkerStatsOptions,
  writeWorkerStats,
} from './worker-process.ts';
