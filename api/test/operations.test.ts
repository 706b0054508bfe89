import { createLogger, loadConfig } from '@earshot/common';
import { afterEach, describe, expect, it } from 'vitest';
import { Metrics } from '../src/adapters/metrics.ts';
import type { AppDeps } from '../src/deps.ts';
import { type RunningServer, startServer } from '../src/server.ts';

/** /ready's checks and /metrics: what they say and who may read them. */
describe('operations endpoints', () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function start(env: Record<string, string>, extra: Partial<AppDeps> = {}): Promise<string> {
    server = await startServer({
      config: loadConfig({ PORT: '0', ...env }),
      logger: createLogger('silent'),
      version: 'test',
      checkDatabase: async () => {},
      ...extra,
    });
    return server.origin;
  }

  it('is not ready while Redis is down or the similarity indexes load, and names which', async () => {
    let redis = false;
    let similarity = false;
    const origin = await start({}, { readiness: { redis: () => redis, similarity: () => similarity } });
    const res = await fetch(`${origin}/ready`);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({
      detail: 'Not ready: redis, similarity.',
      checks: { database: 'ok', redis: 'unavailable', similarity: 'loading' },
    });
    redis = true;
    similarity = true;
    const ready = await fetch(`${origin}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready' });
  });

  it('is ready while the search index builds, and says whether text searches use it yet', async () => {
    let built = false;
    const origin = await start({}, { readiness: { searchIndex: () => built } });
    const building = await fetch(`${origin}/ready`);
    expect(building.status).toBe(200);
    expect(await building.json()).toMatchObject({
      status: 'ready',
      text_search: 'database (index building)',
    });
    built = true;
    expect(await (await fetch(`${origin}/ready`)).json()).toMatchObject({
      status: 'ready',
      text_search: 'index',
    });
  });

  it('serves Prometheus text with durations per route pattern, status class and the sources', async () => {
    const metrics = new Metrics();
    metrics.use({
      queue: async () => ({ waiting: 3, active: 1 }),
      processing: async () => ({ Processed: 7, Queued: 2 }),
      jobOutcomes: async () => [{ stage: 'analyze', outcome: 'failed', count: 4 }],
      caches: () => [{ cache: 'records', hits: 3, misses: 1 }],
    });
    const origin = await start({}, { metrics });
    await fetch(`${origin}/health`);
    await fetch(`${origin}/no/such/path/12345`);
    const res = await fetch(`${origin}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toMatch(
      /earshot_http_request_duration_seconds_count\{pid="\d+",route="\/health",method="GET",status_class="2xx"\} 1/,
    );
    // A path no route knows is counted under one label, not under its own path.
    expect(text).toMatch(/route="unmatched",method="GET",status_class="4xx"/);
    expect(text).not.toContain('/no/such/path');
    expect(text).toMatch(/earshot_queue_jobs\{state="waiting",pid="\d+"\} 3/);
    expect(text).toMatch(/earshot_sounds\{state="Queued",pid="\d+"\} 2/);
    expect(text).toMatch(/earshot_jobs_finished\{stage="analyze",outcome="failed",pid="\d+"\} 4/);
    expect(text).toMatch(/earshot_cache_lookups_total\{cache="records",result="miss",pid="\d+"\} 1/);
    expect(text).toMatch(/earshot_cache_hit_ratio\{cache="records",pid="\d+"\} 0\.75/);
  });

  it('behind a proxy serves /metrics only with METRICS_TOKEN', async () => {
    const token = 'a-long-enough-metrics-token';
    const origin = await start({ TRUST_PROXY: 'true', METRICS_TOKEN: token }, { metrics: new Metrics() });
    const refused = await fetch(`${origin}/metrics`);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/METRICS_TOKEN/);
    const wrong = await fetch(`${origin}/metrics`, { headers: { Authorization: `Bearer ${token}x` } });
    expect(wrong.status).toBe(403);
    const ok = await fetch(`${origin}/metrics`, { headers: { Authorization: `Bearer ${token}` } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('earshot_http_request_duration_seconds');
  });
});
