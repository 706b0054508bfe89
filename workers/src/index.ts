// @earshot/workers: the job registry, the stage handlers, and the two runners (in-process, BullMQ).

export { hashPassword, verifyPassword } from '@earshot/catalogue';
export { createUser, type NewUser, UserExistsError } from './accounts/users.ts';
export { collectFiles, type ImportOutcome, queueImports, waitForSounds } from './intake/bulk-import.ts';
export { DEMO_USER, importDemoFixtures } from './intake/demo.ts';
export { type NewSoundInput, normaliseTags, SoundIntake } from './intake/sound-intake.ts';
export { PermanentJobError } from './jobs/errors.ts';
export type { JobHooks } from './jobs/execute.ts';
export { type JobContext, type JobDefinition, JobRegistry, jobIdFor } from './jobs/registry.ts';
export { bullmqQueueMetrics, metricsAsPrometheus, type PipelineMetrics, pipelineMetrics } from './metrics.ts';
export { listPendingModeration, moderate } from './moderation.ts';
export { CatalogueStore, type StoredAnalysis } from './pipeline/catalogue-store.ts';
export type { SoundAnalyzer } from './pipeline/core-tools.ts';
export { DEFAULT_STAGE_POLICIES } from './pipeline/definitions.ts';
export { AlreadyProcessingError, Pipeline } from './pipeline/pipeline.ts';
export { STAGES, type StageName, stageLabel } from './pipeline/stages.ts';
export type { ProcessingRecord, ProcessingState } from './pipeline/store.ts';
export { BullmqRunner, DEFAULT_QUEUE_PREFIX, type JobReturn } from './runners/bullmq.ts';
export { InProcessRunner } from './runners/in-process.ts';
export type { JobRunner, QueueCounts } from './runners/types.ts';
export { createJobRunner, type JobRunnerService, type JobRunnerServiceOptions } from './service.ts';
export { SoundStorage } from './storage/sound-files.ts';
