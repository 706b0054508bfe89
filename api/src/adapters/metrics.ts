import type { ClipPoolStats } from '@earshot/core';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Queue depth by state, as the job runner counts it (waiting, active, delayed, failed, completed). */
export type QueueDepths = Record<string, number>;

/** Where the gauges read their values when /metrics is scraped; each source is optional. */
export interface MetricSources {
  /** The processing queue's depths by state (the command that runs the jobs wires it). */
  queue?: () => Promise<QueueDepths>;
  /** Job outcomes since the start, by stage (job name) and outcome (completed, failed). */
  jobOutcomes?: () => Promise<Array<{ stage: string; outcome: string; count: number }>>;
  /** Sounds by processing state (a cheap catalogue count, cached by its source). */
  processing?: () => Promise<Record<string, number>>;
  /** Hits and misses of the API's caches, by cache name. */
  caches?: () => Array<{ cache: string; hits: number; misses: number }>;
  /** The audio_file clips' running totals (ClipAnalysisPool.stats()), milliseconds by stage. */
  clips?: () => ClipPoolStats;
}

/**
 * The one adapter around prom-client: the HTTP layer records requests through it and /metrics
 * renders it. A registry per instance (not prom-client's global one), so tests and several apps in
 * one process never share counters.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly sources: MetricSources = {};
  private readonly requestSeconds: Histogram<'route' | 'method' | 'status_class'>;

  constructor(labels: Record<string, string> = {}) {
    this.registry.setDefaultLabels({ pid: String(process.pid), ...labels });
    this.requestSeconds = new Histogram({
      name: 'earshot_http_request_duration_seconds',
      help: "Time from a request's arrival to the end of its response, by route pattern and status class",
      labelNames: ['route', 'method', 'status_class'],
      // From the hot path's sub-millisecond answers to the slowest searches.
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
    const sources = this.sources;
    new Gauge({
      name: 'earshot_queue_jobs',
      help: 'Jobs in the processing queue by state',
      labelNames: ['state'],
      registers: [this.registry],
      async collect() {
        if (!sources.queue) return;
        this.reset();
        for (const [state, n] of Object.entries(await sources.queue())) this.set({ state }, n);
      },
    });
    new Gauge({
      name: 'earshot_jobs_finished',
      help: 'Jobs finished since the queue remembers them, by stage and outcome',
      labelNames: ['stage', 'outcome'],
      registers: [this.registry],
      async collect() {
        if (!sources.jobOutcomes) return;
        this.reset();
        for (const row of await sources.jobOutcomes()) {
          this.set({ stage: row.stage, outcome: row.outcome }, row.count);
        }
      },
    });
    new Gauge({
      name: 'earshot_sounds',
      help: 'Sounds in the catalogue by processing state',
      labelNames: ['state'],
      registers: [this.registry],
      async collect() {
        if (!sources.processing) return;
        this.reset();
        for (const [state, n] of Object.entries(await sources.processing())) this.set({ state }, n);
      },
    });
    // The caches keep running totals; each scrape copies them in.
    new Counter({
      name: 'earshot_cache_lookups_total',
      help: "Lookups of the API's caches by cache and result (hit, miss)",
      labelNames: ['cache', 'result'],
      registers: [this.registry],
      collect() {
        if (!sources.caches) return;
        this.reset();
        for (const c of sources.caches()) {
          this.inc({ cache: c.cache, result: 'hit' }, c.hits);
          this.inc({ cache: c.cache, result: 'miss' }, c.misses);
        }
      },
    });
    new Gauge({
      name: 'earshot_cache_hit_ratio',
      help: "Hits over lookups of the API's caches since the start, by cache",
      labelNames: ['cache'],
      registers: [this.registry],
      collect() {
        if (!sources.caches) return;
        this.reset();
        for (const c of sources.caches()) {
          const total = c.hits + c.misses;
          this.set({ cache: c.cache }, total === 0 ? 0 : c.hits / total);
        }
      },
    });
    // Where an audio_file clip's time goes: a mean per stage is sum / earshot_clips_total.
    new Counter({
      name: 'earshot_clips_total',
      help: 'audio_file clips answered by the clip analysis threads',
      registers: [this.registry],
      collect() {
        if (!sources.clips) return;
        this.reset();
        this.inc(sources.clips().clips);
      },
    });
    new Counter({
      name: 'earshot_clip_stage_seconds_total',
      help: 'Seconds audio_file clips spent by stage: waiting for a thread (wait), decoding (decode), analysing (analysis), in the thread in all (thread)',
      labelNames: ['stage'],
      registers: [this.registry],
      collect() {
        if (!sources.clips) return;
        this.reset();
        const c = sources.clips();
        this.inc({ stage: 'wait' }, c.waitMs / 1000);
        this.inc({ stage: 'decode' }, c.decodeMs / 1000);
        this.inc({ stage: 'analysis' }, c.analysisMs / 1000);
        this.inc({ stage: 'thread' }, c.threadMs / 1000);
      },
    });
  }

  /** Adds or replaces sources (the serve command knows the queue, the API its caches). */
  use(sources: MetricSources): void {
    Object.assign(this.sources, sources);
  }

  /** One finished request. `route` is the route's pattern, never the raw path (bounded labels). */
  observeRequest(route: string, method: string, status: number, seconds: number): void {
    this.requestSeconds.observe({ route, method, status_class: `${Math.floor(status / 100)}xx` }, seconds);
  }

  /** The text exposition format, with its content type. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
