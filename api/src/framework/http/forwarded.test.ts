import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SIGN_IN_LIMITS } from '@earshot/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWebUser, startTestServer, type TestServer, WebClient } from '../../../test/support/index.ts';
import { SESSION_COOKIE } from '../auth/session-strategy.ts';
import { type ClientFacts, clientFacts } from './forwarded.ts';

/** A real node:http server answering with what clientFacts reads of each request, per hop count. */
async function echoServer(): Promise<{
  ask: (hops: number, headers: Record<string, string>) => Promise<ClientFacts>;
  close: () => void;
}> {
  const server = http.createServer((req, res) => {
    const hops = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('hops'));
    res.end(JSON.stringify(clientFacts(req, hops)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    ask: async (hops, headers) =>
      (await (await fetch(`http://127.0.0.1:${port}/?hops=${hops}`, { headers })).json()) as ClientFacts,
    close: () => server.close(),
  };
}

describe('clientFacts: exactly the trusted proxy hops', () => {
  let echo: Awaited<ReturnType<typeof echoServer>>;
  beforeAll(async () => {
    echo = await echoServer();
  });
  afterAll(() => echo?.close());

  it('without trusted proxies ignores every forwarded header', async () => {
    const facts = await echo.ask(0, {
      'X-Forwarded-For': '203.0.113.1',
      'X-Forwarded-Proto': 'https',
      'X-Forwarded-Host': 'evil.example',
    });
    expect(facts).toEqual({
      ip: '127.0.0.1',
      protocol: 'http',
      host: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
    });
  });

  it('with N proxies takes the address the outermost one saw, whatever the client put before it', async () => {
    const forged = 'X-Forwarded-For';
    // One proxy (the test client plays it, appending 198.51.100.7): the client's 1.1.1.1 is ignored.
    expect((await echo.ask(1, { [forged]: '1.1.1.1, 198.51.100.7' })).ip).toBe('198.51.100.7');
    expect((await echo.ask(1, { [forged]: '198.51.100.7' })).ip).toBe('198.51.100.7');
    expect((await echo.ask(1, {})).ip).toBe('127.0.0.1');
    // Two proxies: the outer one saw 198.51.100.7 and the inner one saw the outer one, 10.0.0.2.
    expect((await echo.ask(2, { [forged]: '1.1.1.1, 2.2.2.2, 198.51.100.7, 10.0.0.2' })).ip).toBe(
      '198.51.100.7',
    );
    expect((await echo.ask(3, { [forged]: '1.1.1.1, 198.51.100.7, 10.0.0.2, 10.0.0.3' })).ip).toBe(
      '198.51.100.7',
    );
  });

  it('reads the scheme and host the trusted hop set: `https, http` through one proxy is http', async () => {
    expect((await echo.ask(1, { 'X-Forwarded-Proto': 'https, http' })).protocol).toBe('http');
    expect((await echo.ask(1, { 'X-Forwarded-Proto': 'http, https' })).protocol).toBe('https');
    expect((await echo.ask(1, { 'X-Forwarded-Proto': 'HTTPS' })).protocol).toBe('https');
    expect((await echo.ask(1, { 'X-Forwarded-Proto': 'gopher' })).protocol).toBe('http');
    expect((await echo.ask(2, { 'X-Forwarded-Proto': 'http, https, http' })).protocol).toBe('https');
    expect((await echo.ask(1, { 'X-Forwarded-Host': 'evil.example, earshot.example' })).host).toBe(
      'earshot.example',
    );
  });
});

describe('behind TRUST_PROXY=1, a real server (issue 31 item 5)', () => {
  let proxied: TestServer;
  beforeAll(async () => {
    proxied = await startTestServer({ TRUST_PROXY: '1' });
    await addWebUser(proxied.catalogue.db, 'erin');
  }, 300_000);
  afterAll(() => proxied?.stop());

  it('the sign-in throttle counts the address the proxy saw, not the X-Forwarded-For entry the client chose', async () => {
    const limit = SIGN_IN_LIMITS.perAccountAndAddress.points;
    let last = 0;
    for (let i = 0; i < limit + 7; i++) {
      // A fresh forged leftmost entry each time; the proxy appends the address it really saw.
      const attacker = new WebClient(proxied.origin, {
        'X-Forwarded-For': `10.9.${i}.1, 203.0.113.66`,
        'X-Forwarded-Proto': 'https',
      });
      last = (await attacker.signIn('erin', `guess ${i}`)).status;
      if (i >= limit) expect(last, `attempt ${i + 1}`).toBe(429);
    }
    expect(last).toBe(429);
  });

  it('a Secure cookie only when the proxy said https: `X-Forwarded-Proto: https, http` is plain http', async () => {
    const signInPage = (proto: string) =>
      new WebClient(proxied.origin, { 'X-Forwarded-Proto': proto }).get('/apiv2/login/');
    // Plain http: with OAUTH2_HTTPS_ONLY the sign-in page is refused, and sets no cookie at all.
    const plain = await signInPage('https, http');
    expect(plain.status).toBe(403);
    expect(plain.setCookies).toEqual([]);
    const secure = await signInPage('http, https');
    expect(secure.status).toBe(200);
    expect(secure.setCookies.find((line) => line.startsWith(`${SESSION_COOKIE}=`))).toMatch(/; secure/i);
  });

  it('the OAuth2 https rule reads the same: `https, http` is refused with the 403', async () => {
    const token = (proto: string) =>
      fetch(`${proxied.origin}/apiv2/oauth2/access_token/`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-Proto': proto },
        body: new URLSearchParams({ grant_type: 'refresh_token', client_id: 'x', refresh_token: 'y' }),
      });
    const refused = await token('https, http');
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/https/);
    expect((await token('https')).status).not.toBe(403);
  });

  it('links use the host and scheme the proxy forwarded, never one the client put first', async () => {
    const res = await fetch(`${proxied.origin}/apiv2/?token=${proxied.seeded.apiKey}`, {
      headers: { 'X-Forwarded-Proto': 'https, http', 'X-Forwarded-Host': 'localhost:1, evil.example' },
    });
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).not.toContain('https://localhost:1');
    expect(body).not.toContain('evil.example');
    expect(body).toMatch(/"documentation":"http:\/\/127.0.0.1:\d+\/apiv2\/openapi.json"/);
  });
});
