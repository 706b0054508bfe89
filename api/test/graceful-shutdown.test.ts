import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServeProcess, startServeProcess } from './support/serve-process.ts';

type Outcome =
  | { kind: 'answered'; status: number; body: string }
  | { kind: 'refused' }
  | { kind: 'lost'; error: string };

/**
 * One request over the clients' keep-alive connections: the answer in full, `refused` when a new
 * connection was not accepted (the server had stopped listening), `lost` otherwise.
 */
function request(agent: http.Agent, origin: string, path: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = http.get(`${origin}${path}`, { agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ kind: 'answered', status: res.statusCode ?? 0, body }));
      res.on('error', (err) => resolve({ kind: 'lost', error: String(err) }));
    });
    req.on('error', (err: NodeJS.ErrnoException) =>
      resolve(
        err.code === 'ECONNREFUSED' ? { kind: 'refused' } : { kind: 'lost', error: `${err.code} ${err}` },
      ),
    );
  });
}

describe('SIGTERM during a load of requests', () => {
  let serve: ServeProcess;
  beforeAll(async () => {
    serve = await startServeProcess();
  }, 120_000);
  afterAll(() => serve?.stop());

  it('is ready, and serves its metrics with the queue and the processing counts to loopback', async () => {
    const ready = await fetch(`${serve.origin}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ checks: { database: 'ok', similarity: 'ok' } });
    const res = await fetch(`${serve.origin}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(
      /earshot_http_request_duration_seconds_count\{pid="\d+",route="\/ready",method="GET",status_class="2xx"\} 1/,
    );
    expect(text).toMatch(/earshot_queue_jobs\{state="waiting",pid="\d+"\} 0/);
    // A fresh data folder without the demo import: no sounds, so no processing state is counted.
    expect(text).toContain('# TYPE earshot_sounds gauge');
  });

  it('answers every accepted request in full and exits 0 within the limit', async () => {
    const outcomes: Outcome[] = [];
    let stopped = false;
    // 40 clients on connections the server has accepted (a new connection made just before the
    // listening socket closes would wait in the kernel's queue and be reset with it: not a request
    // the server accepted, and indistinguishable here from one it lost).
    const agent = new http.Agent({ keepAlive: true, maxSockets: 40 });
    const warm = await Promise.all(Array.from({ length: 40 }, () => request(agent, serve.origin, '/health')));
    expect(warm.every((o) => o.kind === 'answered')).toBe(true);
    // Each sends requests one after another (/ready reads the database) until refused.
    const clients = Array.from({ length: 40 }, async () => {
      while (!stopped) {
        const outcome = await request(agent, serve.origin, '/ready');
        outcomes.push(outcome);
        if (outcome.kind !== 'answered') return;
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const answeredBefore = outcomes.filter((o) => o.kind === 'answered').length;
    const ended = await serve.terminate();
    stopped = true;
    await Promise.all(clients);
    agent.destroy();

    expect(answeredBefore).toBeGreaterThan(40); // the load was running when the signal came
    expect(ended.code).toBe(0);
    expect(ended.ms).toBeLessThan(12_000);
    const lost = outcomes.filter((o) => o.kind === 'lost');
    expect(lost).toEqual([]);
    for (const o of outcomes) {
      if (o.kind !== 'answered') continue;
      expect(o.status).toBe(200);
      expect(JSON.parse(o.body)).toMatchObject({ status: 'ready' });
    }
  }, 60_000);
});
