import { Writable } from 'node:stream';
import { createLogger, loadConfig } from '@earshot/common';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../src/server.ts';

describe('HTTP skeleton', () => {
  let server: RunningServer;
  let databaseUp = true;
  beforeAll(async () => {
    server = await startServer({
      config: loadConfig({ PORT: '0' }),
      logger: createLogger('silent'),
      version: 'test',
      checkDatabase: async () => {
        if (!databaseUp) throw new Error('connection refused');
      },
    });
  });
  afterAll(() => server.close());

  it('answers /health while alive and /ready with the database state', async () => {
    const ok = await fetch(`${server.origin}/ready`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ status: 'ready', checks: { database: 'ok' } });
    databaseUp = false;
    const alive = await fetch(`${server.origin}/health`);
    expect(alive.status).toBe(200);
    expect(await alive.json()).toMatchObject({ status: 'ok' });
    const down = await fetch(`${server.origin}/ready`);
    expect(down.status).toBe(503);
    // The database's own words stay in the log: a public endpoint must not show them (issue 19).
    const body = await down.text();
    expect(JSON.parse(body)).toMatchObject({
      status: 'not ready',
      detail: 'Not ready: database.',
      checks: { database: 'unavailable' },
    });
    expect(body).not.toMatch(/connection refused/);
    databaseUp = true;
  });

  it('gives every response a request id, keeping a sane client one', async () => {
    const res = await fetch(`${server.origin}/health`, { headers: { 'X-Request-Id': 'abc-123' } });
    expect(res.headers.get('x-request-id')).toBe('abc-123');
    const res2 = await fetch(`${server.origin}/health`, {
      headers: { 'X-Request-Id': 'bad id\twith spaces' },
    });
    expect(res2.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers unknown paths with 404 and a detail, wrong methods with 405, and CORS *', async () => {
    const res = await fetch(`${server.origin}/nope`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ detail: 'Not found.' });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const wrong = await fetch(`${server.origin}/health`, { method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expect(await wrong.json()).toEqual({ detail: 'Method "DELETE" not allowed.' });
  });

  it('logs one line per request with its id, status and time when info is on', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
        done();
      },
    });
    const logged = await startServer({
      config: loadConfig({ PORT: '0' }),
      logger: pino({ level: 'info' }, sink),
      version: 'test',
      checkDatabase: async () => {},
    });
    try {
      await fetch(`${logged.origin}/health?x=1`, { headers: { 'X-Request-Id': 'req-42' } });
      await fetch(`${logged.origin}/nope`);
    } finally {
      await logged.close();
    }
    const requests = lines.filter((l) => l.msg === 'request');
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({ reqId: 'req-42', method: 'GET', url: '/health?x=1', status: 200 });
    expect(typeof requests[0].ms).toBe('number');
    expect(requests[1]).toMatchObject({ method: 'GET', url: '/nope', status: 404 });
    expect(requests[1].reqId).toMatch(/^[0-9a-f-]{36}$/);
  });
});
