import type { Logger } from '@earshot/common';
import { JobRegistry } from './jobs/registry.ts';
import { BullmqRunner } from './runners/bullmq.ts';
import type { JobRunner, QueueCounts } from './runners/types.ts';

export interface DurationSummary {
  count: number;
  meanMs: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
}

export interface PipelineMetrics {
  runner: JobRunner['kind'];
  queue: QueueCounts;
  /** Per job (stage) name, over recently completed jobs. */
  durations: Record<string, DurationSummary>;
  recentFailures: Array<{ name: string; soundId: number; reason: string }>;
}

export function summarize(values: number[]): DurationSummary {
  if (values.length === 0) return { count: 0, meanMs: 0, p50Ms: 0, p95Ms: 0, maxMs: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  const round = (v: number) => Math.round(v * 10) / 10;
  return {
    count: sorted.length,
    meanMs: round(mean),
    p50Ms: round(at(0.5)),
    p95Ms: round(at(0.95)),
    maxMs: round(sorted[sorted.length - 1]),
  };
}

/** Queue depth, job durations and failures: what `earshot worker --stats` prints and an endpoint can serve. */
export async function pipelineMetrics(runner: JobRunner): Promise<PipelineMetrics> {
  const [queue, durations, recentFailures] = await Promise.all([
    runner.counts(),
    runner.recentDurations(),
    runner.recentFailures(),
  ]);
  return {
    runner: runner.kind,
    queue,
    durations: Object.fromEntries(Object.entries(durations).map(([name, list]) => [name, summarize(list)])),
    recentFailures,
  };
}

/** The same figures in Prometheus' text format, for a /metrics endpoint. */
export function metricsAsPrometheus(m: PipelineMetrics): string {
  const lines: string[] = [
    '# HELP earshot_queue_jobs Jobs in the pipeline queue by state.',
    '# TYPE earshot_queue_jobs gauge',
  ];
  for (const [state, n] of Object.entries(m.queue)) lines.push(`earshot_queue_jobs{state="${state}"} ${n}`);
  lines.push(
    '# HELP earshot_job_duration_ms Run time of recently completed jobs.',
    '# TYPE earshot_job_duration_ms summary',
  );
  for (const [name, s] of Object.entries(m.durations)) {
    lines.push(`earshot_job_duration_ms{job="${name}",quantile="0.5"} ${s.p50Ms}`);
    lines.push(`earshot_job_duration_ms{job="${name}",quantile="0.95"} ${s.p95Ms}`);
    lines.push(`earshot_job_duration_ms_count{job="${name}"} ${s.count}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Metrics of the BullMQ queue without opening the catalogue (what `earshot worker --stats` prints). */
export async function bullmqQueueMetrics(options: {
  redisUrl: string;
  prefix?: string;
  logger: Logger;
}): Promise<PipelineMetrics> {
  const runner = new BullmqRunner({ ...options, registry: new JobRegistry([]) });
  try {
    return await pipelineMetrics(runner);
  } finally {
    await runner.close(0);
  }
}
