import { createLogger, loadConfig } from '@earshot/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from './server.ts';

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

  it('answers the health endpoint with the database state', async () => {
    const ok = await fetch(`${server.origin}/health`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ status: 'ok', database: 'ok' });
    databaseUp = false;
    const down = await fetch(`${server.origin}/health`);
    expect(down.status).toBe(503);
    expect(((await down.json()) as { database: string }).database).toMatch(/connection refused/);
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
});
