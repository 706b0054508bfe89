import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/index.ts';

/** Issue 19: a request's credentials never reach the request log, on Koa and on the hot path. */
describe('request logs (black box)', () => {
  let server: TestServer;
  const lines: string[] = [];

  beforeAll(async () => {
    server = await startTestServer({}, { log: (line) => lines.push(line) });
  });
  afterAll(() => server?.stop());

  it('masks ?token=, OAuth2 parameters and never writes header values', async () => {
    const key = server.seeded.apiKey;
    const sound = `${server.origin}/apiv2/sounds/${server.seeded.ids.bd_808}/`;
    // Twice: the second answer comes from the hot path, which logs on its own.
    expect((await fetch(`${sound}?token=${key}`)).status).toBe(200);
    expect((await fetch(`${sound}?token=${key}`)).status).toBe(200);
    expect((await fetch(sound, { headers: { Authorization: `Token ${key}` } })).status).toBe(200);
    await fetch(`${server.origin}/apiv2/me/?access_token=ACCESSTOKEN0123456789`, {
      headers: { Authorization: 'Bearer BEARERTOKEN0123456789' },
    });
    await fetch(`${server.origin}/home/app_permissions/permission_granted/?code=CODE0123456789`);
    await fetch(
      `${server.origin}/apiv2/oauth2/access_token/?client_secret=SECRET0123456789&refresh_token=REFRESH0123456789`,
      {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'refresh_token', client_secret: 'FORMSECRET0123' }),
      },
    );
    const requests = lines
      .map((l) => JSON.parse(l) as { msg: string; url?: string })
      .filter((l) => l.msg === 'request');
    expect(requests.length, JSON.stringify(requests.map((r) => r.url))).toBe(6);
    const all = lines.join('');
    for (const secret of [
      key,
      'ACCESSTOKEN0123456789',
      'BEARERTOKEN0123456789',
      'CODE0123456789',
      'SECRET0123456789',
      'REFRESH0123456789',
      'FORMSECRET0123',
    ]) {
      expect(all, secret).not.toContain(secret);
    }
    expect(requests.filter((r) => r.url?.endsWith('/?token=[REDACTED]'))).toHaveLength(2);
    expect(all).toContain('code=[REDACTED]');
  });
});
