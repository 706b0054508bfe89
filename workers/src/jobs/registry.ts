import type { Logger } from '@earshot/common';

/** What every job carries: the sound it works on. Stages find everything else in the catalogue. */
export interface JobPayload {
  soundId: number;
}

/** What a handler sees. Identical under both runners, so a handler cannot tell which one runs it. */
export interface JobContext {
  readonly name: string;
  readonly soundId: number;
  readonly jobId: string;
  /** 1-based number of this attempt. */
  readonly attempt: number;
  readonly maxAttempts: number;
  /** Aborted when the job's timeout expires or the runner shuts down hard. */
  readonly signal: AbortSignal;
  readonly logger: Logger;
  /** Progress of this job, 0–100. */
  progress(percent: number): Promise<void>;
}

export type JobHandler = (ctx: JobContext) => Promise<void>;

export interface BackoffPolicy {
  type: 'fixed' | 'exponential';
  delayMs: number;
}

export interface JobDefinition {
  name: string;
  handler: JobHandler;
  /** A run longer than this is aborted and counts as a failed attempt. */
  timeoutMs: number;
  /** Total attempts, the first included. */
  attempts: number;
  backoff: BackoffPolicy;
  /**
   * Whether the queue keeps the job once it finished (default true: a sound's stage job is not
   * queued again by mistake while the queue remembers it). A catalogue-wide job that is queued
   * again and again sets false, so each new add is a new run.
   */
  keepFinished?: boolean;
}

/** The `soundId` of a job about the whole catalogue rather than one sound. */
export const CATALOGUE_WIDE = 0;

/**
 * The fixed id of the job that runs `name` for a sound: adding it twice is harmless because both
 * runners drop an add whose id is already waiting or running. BullMQ reserves ':' in custom ids,
 * so the separator is '-'.
 */
export function jobIdFor(soundId: number, name: string): string {
  return `${soundId}-${name}`;
}

export function backoffDelay(policy: BackoffPolicy, failedAttempts: number): number {
  if (policy.type === 'fixed') return policy.delayMs;
  return policy.delayMs * 2 ** Math.max(0, failedAttempts - 1);
}

/** The jobs a runner knows, each defined once. */
export class JobRegistry {
  private readonly byName = new Map<string, JobDefinition>();

  constructor(definitions: JobDefinition[]) {
    for (const def of definitions) {
      if (this.byName.has(def.name)) throw new Error(`job "${def.name}" is defined twice`);
      if (!/^[a-z][a-z0-9_]*$/.test(def.name)) throw new Error(`job name "${def.name}" must be snake_case`);
      if (def.attempts < 1) throw new Error(`job "${def.name}" needs at least one attempt`);
      this.byName.set(def.name, def);
    }
  }

  get(name: string): JobDefinition {
    const def = this.byName.get(name);
    if (!def) throw new Error(`unknown job "${name}"; known: ${this.names().join(', ')}`);
    return def;
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  names(): string[] {
    return [...this.byName.keys()];
  }
}
