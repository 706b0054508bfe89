import type { BackoffPolicy, JobDefinition } from '../jobs/registry.ts';
import { JobRegistry } from '../jobs/registry.ts';
import {
  pruneEventsJob,
  pruneListWalksJob,
  retrainCategories,
  STAGE_HANDLERS,
  type StageDeps,
} from './handlers.ts';
import { STAGES, type StageName } from './stages.ts';

export interface StagePolicy {
  timeoutMs: number;
  attempts: number;
  backoff: BackoffPolicy;
}

const RETRY: BackoffPolicy = { type: 'exponential', delayMs: 5_000 };

/** Per-stage limits. Media and analysis decode the whole file, so they get minutes. */
export const DEFAULT_STAGE_POLICIES: Record<StageName, StagePolicy> = {
  probe: { timeoutMs: 60_000, attempts: 3, backoff: RETRY },
  media: { timeoutMs: 10 * 60_000, attempts: 3, backoff: RETRY },
  analysis: { timeoutMs: 15 * 60_000, attempts: 3, backoff: RETRY },
  similarity: { timeoutMs: 60_000, attempts: 3, backoff: RETRY },
  handover: { timeoutMs: 30_000, attempts: 5, backoff: RETRY },
};

/** The catalogue-wide job that retrains the category model (queued after each handover and at start). */
export const CATEGORY_MODEL_JOB = 'category_model';

const CATEGORY_MODEL_POLICY: StagePolicy = { timeoutMs: 15 * 60_000, attempts: 3, backoff: RETRY };

/**
 * The catalogue-wide job that removes the events and webhook delivery attempts past their
 * retention (queued by the reconciler every `eventUpkeepEveryMs`, default hourly).
 */
export const EVENTS_UPKEEP_JOB = 'events_upkeep';

const EVENTS_UPKEEP_POLICY: StagePolicy = { timeoutMs: 15 * 60_000, attempts: 2, backoff: RETRY };

/**
 * The catalogue-wide job that removes the cursor walks kept past LIST_WALK_IDLE_MINUTES (queued by
 * the reconciler every `listWalkUpkeepEveryMs`, default 10 minutes): without it a walk's ids would
 * stay until the next walk starts.
 */
export const LIST_WALKS_UPKEEP_JOB = 'list_walks_upkeep';

const LIST_WALKS_UPKEEP_POLICY: StagePolicy = { timeoutMs: 15 * 60_000, attempts: 2, backoff: RETRY };

/**
 * The catalogue-wide job that makes the bulk export again when it is due (queued by the reconciler
 * now and then; the job decides). Only processes that can export (PUBLIC_URL) queue it.
 */
export const CATALOGUE_EXPORT_JOB = 'catalogue_export';

const CATALOGUE_EXPORT_POLICY: StagePolicy = { timeoutMs: 60 * 60_000, attempts: 2, backoff: RETRY };

/**
 * The pipeline's job registry: one job per stage, the category model's retraining, the events' and
 * the cursor walks' upkeep and the bulk export, all bound to the same dependencies.
 */
export function pipelineRegistry(
  deps: StageDeps,
  policies: Partial<Record<StageName, Partial<StagePolicy>>> = {},
): JobRegistry {
  const definitions: JobDefinition[] = STAGES.map(({ name }) => ({
    name,
    ...DEFAULT_STAGE_POLICIES[name],
    ...policies[name],
    handler: (ctx) => STAGE_HANDLERS[name](ctx, deps),
  }));
  definitions.push({
    name: CATEGORY_MODEL_JOB,
    ...CATEGORY_MODEL_POLICY,
    keepFinished: false,
    handler: (ctx) => retrainCategories(ctx, deps),
  });
  definitions.push({
    name: EVENTS_UPKEEP_JOB,
    ...EVENTS_UPKEEP_POLICY,
    keepFinished: false,
    handler: (ctx) => pruneEventsJob(ctx, deps),
  });
  definitions.push({
    name: LIST_WALKS_UPKEEP_JOB,
    ...LIST_WALKS_UPKEEP_POLICY,
    keepFinished: false,
    handler: (ctx) => pruneListWalksJob(ctx, deps),
  });
  definitions.push({
    name: CATALOGUE_EXPORT_JOB,
    ...CATALOGUE_EXPORT_POLICY,
    keepFinished: false,
    // A process not set up to export (no PUBLIC_URL) leaves the job to the next check elsewhere.
    handler: async (ctx) => deps.exportCatalogue?.(ctx.signal),
  });
  return new JobRegistry(definitions);
}
