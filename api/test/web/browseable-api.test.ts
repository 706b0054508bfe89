import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWebUser, startTestServer, type TestServer, WebClient } from '../support/index.ts';

/** What Chromium sends for a page. */
const BROWSER_ACCEPT =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
const HOSTILE_NAME = '<script>alert("boo")</script> & co';

describe('browseable API (black box)', () => {
  let server: TestServer;
  let soundId: number;
  let browser: WebClient;

  beforeAll(async () => {
    server = await startTestServer();
    await addWebUser(server.catalogue.db, 'carol');
    soundId = server.seeded.ids.bd_808;
    await server.catalogue.db
      .updateTable('sounds')
      .set({ name: HOSTILE_NAME })
      .where('id', '=', soundId)
      .execute();
    browser = new WebClient(server.origin, { Accept: BROWSER_ACCEPT });
    expect((await browser.signIn('carol')).status).toBe(303);
  });
  afterAll(async () => {
    await server?.stop();
  });

  const withToken = (path: string, headers: Record<string, string> = {}) =>
    fetch(new URL(path, server.origin), {
      headers: { Authorization: `Token ${server.seeded.apiKey}`, ...headers },
    });

  it('shows a sound to a signed-in browser as a page: links clickable, names escaped, Vary: Accept', async () => {
    const page = await browser.get(`/apiv2/sounds/${soundId}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('vary')).toMatch(/\bAccept\b/);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.body).toContain(`<code><span class="method">GET</span> /apiv2/sounds/${soundId}/</code>`);
    expect(page.body).toContain('200 OK');
    expect(page.body).toContain('<a href="/apiv2/account/">carol</a>');
    const similar = `${server.origin}/apiv2/sounds/${soundId}/similar/`;
    expect(page.body).toContain(`<a class="string" href="${similar}">&quot;${similar}&quot;</a>`);
    // The name is shown as JSON text, escaped: no element comes out of it.
    expect(page.body).not.toContain('<script>');
    expect(page.body).toContain(
      '&quot;&lt;script&gt;alert(\\&quot;boo\\&quot;)&lt;/script&gt; &amp; co&quot;',
    );
    expect(page.body).toContain(`href="/apiv2/sounds/${soundId}/?format=json"`);
  });

  it('gives the same session JSON with format=json, and keeps curl and fetch on identical JSON', async () => {
    const path = `/apiv2/sounds/${soundId}/`;
    const viaKoa = await withToken(path);
    const viaHotPath = await withToken(path, { Accept: '*/*' });
    const curl = await withToken(path, { Accept: '*/*', 'User-Agent': 'curl/8.5.0' });
    const bodies = await Promise.all([viaKoa, viaHotPath, curl].map((r) => r.text()));
    for (const r of [viaKoa, viaHotPath, curl]) {
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    }
    expect(bodies[1]).toBe(bodies[0]);
    expect(bodies[2]).toBe(bodies[0]);
    const session = await browser.get(`${path}?format=json`);
    expect(session.status).toBe(200);
    expect(session.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(session.body).toBe(bodies[0]);
    // Asked as HTML after the JSON was cached, the page is still a page, and JSON stays JSON.
    expect((await browser.get(path)).headers.get('content-type')).toMatch(/^text\/html/);
    expect(await (await withToken(path)).text()).toBe(bodies[0]);
    // An explicit JSON preference, or a tie, is JSON.
    const tie = await withToken(path, { Accept: 'text/html, application/json' });
    expect(await tie.text()).toBe(bodies[0]);
  });

  it('answers 401 without a session or key: a sign-in invitation for a browser, JSON for a client', async () => {
    const visitor = new WebClient(server.origin, { Accept: BROWSER_ACCEPT });
    const page = await visitor.get(`/apiv2/sounds/${soundId}/`);
    expect(page.status).toBe(401);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.body).toContain(`href="/apiv2/login/?next=%2Fapiv2%2Fsounds%2F${soundId}%2F"`);
    expect(page.body).toContain('Authentication credentials were not provided.');
    const api = await fetch(new URL(`/apiv2/sounds/${soundId}/`, server.origin));
    expect(api.status).toBe(401);
    expect(await api.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
    // A visitor's session (from the sign-in form) is no credential.
    await visitor.get('/apiv2/login/');
    expect((await visitor.get(`/apiv2/sounds/${soundId}/?format=json`)).status).toBe(401);
  });

  it('lists the resources at /apiv2/: JSON with a key, a page of links for a signed-in browser', async () => {
    const json = await withToken('/apiv2/');
    expect(json.status).toBe(200);
    const root = (await json.json()) as { resources: Array<{ path: string; url: string | null }> };
    const text = root.resources.find((r) => r.path === '/apiv2/search/text/');
    expect(text?.url).toBe(`${server.origin}/apiv2/search/text/`);
    expect(root.resources.find((r) => r.path === '/apiv2/sounds/{sound_id}/')?.url).toBeNull();
    const page = await browser.get('/apiv2/');
    expect(page.status).toBe(200);
    expect(page.body).toContain(`href="${server.origin}/apiv2/search/text/"`);
  });

  it('links each result of a sound list to its sound, and offers the POST form of a search', async () => {
    const page = await browser.get('/apiv2/search/text/?query=kick');
    expect(page.status).toBe(200);
    expect(page.body).toContain(`<a class="number" href="/apiv2/sounds/${soundId}/">${soundId}</a>`);
    expect(page.body).toContain('Allow</dt><dd>GET, POST, OPTIONS');
    expect(page.body).toMatch(/<form method="post" action="\/apiv2\/search\/text\/" class="api-form">/);
    expect(page.body).toMatch(/<input id="f0-query" name="query" type="text" value="kick"/);
  });

  it('refuses a session POST without the CSRF token (403), accepts it with the token', async () => {
    const noToken = await browser.request(
      'POST',
      '/apiv2/search/text/',
      new URLSearchParams({ query: 'kick' }),
    );
    expect(noToken.status).toBe(403);
    expect(noToken.body).toContain('CSRF Failed: CSRF token missing or incorrect.');
    const json = await fetch(new URL('/apiv2/search/text/?format=json', server.origin), {
      method: 'POST',
      headers: { Cookie: `earshot_session=${[...browser.cookies.values()][0]}` },
      body: new URLSearchParams({ query: 'kick', csrf_token: 'forged' }),
    });
    expect(json.status).toBe(403);
    expect(await json.json()).toEqual({ detail: 'CSRF Failed: CSRF token missing or incorrect.' });
    await browser.get('/apiv2/search/text/');
    const ok = await browser.post('/apiv2/search/text/', { query: 'kick', page_size: '1' });
    expect(ok.status).toBe(200);
    expect(ok.body).toContain('<span class="method">POST</span>');
    expect(ok.body).toContain('page_size=1'); // the next link carries the search…
    expect(ok.body).not.toMatch(/csrf_token=/); // …but not the form's token
    // A key needs no CSRF token: the cookie is not what authenticates it.
    const keyed = await fetch(new URL('/apiv2/search/text/', server.origin), {
      method: 'POST',
      headers: { Authorization: `Token ${server.seeded.apiKey}` },
      body: new URLSearchParams({ query: 'kick' }),
    });
    expect(keyed.status).toBe(200);
  });

  it('counts a signed-in browser per user at the standard level', async () => {
    const first = await browser.get('/apiv2/users/alice/?format=json');
    const second = await browser.get('/apiv2/users/alice/?format=json');
    expect(first.headers.get('x-ratelimit-limit')).toBe('60');
    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(
      Number(first.headers.get('x-ratelimit-remaining')) - 1,
    );
  });
});
