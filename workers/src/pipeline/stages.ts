import type { StageAdvance } from '@earshot/catalogue';

/**
 * The stages every uploaded sound goes through, in order. Each is one job; finishing one queues the
 * next. The weights split the sound's overall progress (0–100 %) between the stages.
 */
export const STAGES = [
  { name: 'probe', label: 'validating and probing', weight: 5 },
  { name: 'media', label: 'making previews and images', weight: 35 },
  { name: 'analysis', label: 'analyzing', weight: 45 },
  { name: 'similarity', label: 'indexing for similarity', weight: 10 },
  { name: 'handover', label: 'handing over to moderation', weight: 5 },
] as const;

export type StageName = (typeof STAGES)[number]['name'];

export const FIRST_STAGE: StageName = STAGES[0].name;

export function isStage(name: string): name is StageName {
  return STAGES.some((s) => s.name === name);
}

/** A stage name read back from the catalogue; none yet (a queued sound) or unknown starts from the first stage. */
export function asStage(stage: string | null): StageName {
  return stage && isStage(stage) ? stage : FIRST_STAGE;
}

export function nextStage(name: StageName): StageName | undefined {
  const i = STAGES.findIndex((s) => s.name === name);
  return STAGES[i + 1]?.name;
}

export function stageLabel(name: string): string {
  return STAGES.find((s) => s.name === name)?.label ?? name;
}

/** Overall progress of a sound that is `percentOfStage` % through `name`, in whole %. */
function overallPercent(name: StageName, percentOfStage: number): number {
  let before = 0;
  for (const stage of STAGES) {
    if (stage.name === name) return Math.round(before + (stage.weight * percentOfStage) / 100);
    before += stage.weight;
  }
  return before;
}

/**
 * The record of a sound that is `percentOfStage` % through `name`: the stage and the overall
 * progress as the catalogue keeps it (0–1; the weights count in whole %, converted here only).
 */
export function stageAt(name: StageName, percentOfStage = 0): StageAdvance<StageName> {
  return { stage: name, progress: overallPercent(name, percentOfStage) / 100 };
}

/**
 * Stages whose handler ends with a catalogue write of its own: that write also moves the sound's
 * record on to the next stage (one UPDATE, one search-document refresh instead of two), and the
 * completion hook only queues the next job.
 */
export const ADVANCED_BY_HANDLER: ReadonlySet<StageName> = new Set(['probe', 'media', 'analysis']);

/** The record a sound gets when `name` is done and the next stage is due (undefined after the last). */
export function advanceAfter(name: StageName): StageAdvance<StageName> | undefined {
  const next = nextStage(name);
  return next ? stageAt(next) : undefined;
}
