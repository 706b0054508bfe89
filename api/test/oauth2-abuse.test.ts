import { createApiCredential } from '@earshot/services';
import { recordingQueue } from '@earshot/services/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServices } from '../src/application/index.ts';
import { type AnyRoute, routeScope } from '../src/framework/http/route.ts';
import { v1Routes } from '../src/v1/router.ts';
import { v2Routes } from '../src/v2/router.ts';
import {
  addWebUser,
  startTestServer,
  type TestServer,
  WEB_PASSWORD,
  WebClient,
  type WebResponse,
} from './support/index.ts';
import { NEXT_TRICKS, REDIRECT_URI_TRICKS } from './support/redirect-tricks.ts';

/**
 * The OAuth2 abuse suite (issue 31): what an application or a thief would try against a real
 * server, through its pages and its API, as a browser and a client send them. Behind one trusted
 * proxy that says https, as a production deployment runs (OAUTH2_HTTPS_ONLY on).
 */
const REDIRECT = 'https://app.example/callback';
const HTTPS = { 'X-Forwarded-Proto': 'https' };

let s: TestServer;
let app: { client_id: string; client_secret: string };
let soundId: number;

beforeAll(async () => {
  // With a processing queue, as `earshot serve` runs: the upload routes exist.
  s = await startTestServer({ TRUST_PROXY: '1' }, { queue: recordingQueue().queue });
  await addWebUser(s.catalogue.db, 'mallory');
  soundId = s.seeded.ids.bd_808;
}, 300_000);
afterAll(() => s?.stop());

/** A new application of its own for each test, so grants of one test never stand for another. */
async function newApp() {
  app = await createApiCredential(s.catalogue.db, {
    username: 'appmaker',
    name: `Abuser ${Math.random().toString(36).slice(2, 8)}`,
    redirectUri: REDIRECT,
    level: 'unlimited',
  });
  return app;
}

async function signedIn(): Promise<WebClient> {
  const browser = new WebClient(s.origin, HTTPS);
  expect((await browser.signIn('mallory', WEB_PASSWORD)).status).toBe(303);
  return browser;
}

function authorizePath(extra: Record<string, string>): string {
  return `/apiv2/oauth2/authorize/?${new URLSearchParams({ client_id: app.client_id, response_type: 'code', state: 'st', ...extra })}`;
}

/** The consent form's hidden fields, as the page sent them. */
function hiddenFields(body: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const m of body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[m[1]] = m[2]
      .replace(/&amp;/g, '&')
      .replace(/&#39;/g, "'")
      .replace(/&quot;/g, '"');
  }
  return fields;
}

function codeOf(res: WebResponse): string {
  expect(res.status).toBe(302);
  const url = new URL(res.headers.get('location') as string);
  expect(url.origin + url.pathname).toBe(REDIRECT);
  return url.searchParams.get('code') as string;
}

/** The consent page was shown (200 with the Authorize button), not a redirect with a code. */
function expectConsentPage(res: WebResponse) {
  expect(res.status, `Location: ${res.headers.get('location')}`).toBe(200);
  expect(res.headers.get('location')).toBeNull();
  expect(res.body).toContain('name="allow" value="Authorize"');
}

/** The browser consents on the page it was shown; the code of the redirect. */
async function consent(browser: WebClient, page: WebResponse): Promise<string> {
  expectConsentPage(page);
  return codeOf(
    await browser.post('/apiv2/oauth2/authorize/', { ...hiddenFields(page.body), allow: 'Authorize' }),
  );
}

function tokenEndpoint(params: Record<string, string>) {
  return fetch(`${s.origin}/apiv2/oauth2/access_token/`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...HTTPS },
    body: new URLSearchParams({ client_id: app.client_id, client_secret: app.client_secret, ...params }),
  });
}

interface Pair {
  access_token: string;
  refresh_token: string;
  scope: string;
}

async function exchange(code: string): Promise<Pair> {
  const res = await tokenEndpoint({ grant_type: 'authorization_code', code });
  expect(res.status).toBe(200);
  return (await res.json()) as Pair;
}

/** A pair granted through the pages for `scope` (a new application, a fresh consent). */
async function grantedPair(scope: string): Promise<Pair> {
  await newApp();
  const browser = await signedIn();
  return exchange(await consent(browser, await browser.get(authorizePath({ scope }))));
}

const refresh = (refreshToken: string, extra: Record<string, string> = {}) =>
  tokenEndpoint({ grant_type: 'refresh_token', refresh_token: refreshToken, ...extra });

const me = (token: string) =>
  fetch(`${s.origin}/apiv2/me/`, { headers: { Authorization: `Bearer ${token}`, ...HTTPS } });

async function expectOAuthError(res: Response, status: number, error: string) {
  const body = (await res.json()) as Record<string, string>;
  expect(res.status, JSON.stringify(body)).toBe(status);
  expect(body.error).toBe(error);
  expect(typeof body.detail).toBe('string');
}

describe('consent is never widened without asking', () => {
  it('after a `read` consent, a request for `read write` shows the consent page; granting it records both', async () => {
    await newApp();
    const browser = await signedIn();
    const read = await exchange(await consent(browser, await browser.get(authorizePath({ scope: 'read' }))));
    expect(read.scope).toBe('read');
    // The same scope again is granted at once (the contract's automatic grant).
    expect(codeOf(await browser.get(authorizePath({ scope: 'read' })))).toMatch(/.+/);
    // Wider: asked again, for every way of asking for more.
    for (const scope of ['read write', 'write', 'write read', 'read  write']) {
      expectConsentPage(await browser.get(authorizePath({ scope })));
    }
    // No scope means both, so it is wider than `read` too.
    expectConsentPage(await browser.get(authorizePath({})));
    const both = await exchange(
      await consent(browser, await browser.get(authorizePath({ scope: 'read write' }))),
    );
    expect(both.scope.split(' ').sort()).toEqual(['read', 'write']);
    // Now both were consented: each of them alone, and both, are granted without asking.
    for (const scope of ['read', 'write', 'read write']) {
      expect(codeOf(await browser.get(authorizePath({ scope }))), scope).toMatch(/.+/);
    }
    // A later narrower token does not forget the consent.
    const narrower = await exchange(codeOf(await browser.get(authorizePath({ scope: 'read' }))));
    expect(narrower.scope).toBe('read');
    expect(codeOf(await browser.get(authorizePath({ scope: 'read write' })))).toMatch(/.+/);
  });

  it('a code auto-granted for `read` gives a token that cannot write', async () => {
    await newApp();
    const browser = await signedIn();
    await exchange(await consent(browser, await browser.get(authorizePath({ scope: 'read' }))));
    const again = await exchange(codeOf(await browser.get(authorizePath({ scope: 'read' }))));
    expect(again.scope).toBe('read');
    const comment = await fetch(`${s.origin}/apiv2/sounds/${soundId}/comment/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${again.access_token}`, ...HTTPS },
      body: new URLSearchParams({ comment: 'widened?' }),
    });
    expect(comment.status).toBe(401);
  });
});

/** Every route a credential may call that needs the `write` scope, from the route definitions themselves. */
function writeRoutes(): AnyRoute[] {
  const api = s.deps.api;
  if (!api) throw new Error('no API ports');
  const services = createServices(api, s.deps.config.API_VARIANT);
  const routes: AnyRoute[] = [
    ...v2Routes(services, { version: 'test', isVisible: async () => true, oauth2: s.deps.oauth2 }),
    ...(services.v1 ? v1Routes(services.v1, services, { version: 'test' }) : []),
  ];
  return routes.filter((route) => route.auth !== 'public' && routeScope(route) === 'write');
}

/** A request a write route would otherwise act on: real ids, plausible fields. */
function writeRequest(route: AnyRoute, token: string): Promise<Response> {
  const path = route.path.replace('{sound_id}', String(soundId)).replace(/\{[A-Za-z0-9_]+(\.\.\.)?\}/g, '1');
  const body = new URLSearchParams({
    comment: 'written with a read-only token',
    rating: '4',
    name: 'renamed by a read-only token',
    category: 'read-only loot',
    tags: 'read only token',
    description: 'written with a read-only token',
    upload_filename: 'x.wav',
  });
  return fetch(`${s.origin}${path}`, {
    method: route.method,
    headers: { Authorization: `Bearer ${token}`, ...HTTPS },
    body,
  });
}

describe('a read-only token on every write route', () => {
  it('derives the write routes from the route definitions: every non-GET route but the searches', () => {
    const names = writeRoutes().map((r) => r.operationId);
    for (const known of [
      'uploadSound',
      'describeSound',
      'editSound',
      'rateSound',
      'commentSound',
      'bookmarkSound',
    ]) {
      expect(names).toContain(known);
    }
    expect(names.some((n) => /search/i.test(n))).toBe(false);
  });

  it('is refused on each with 401 "Not authorized" and an insufficient_scope challenge, and writes nothing', async () => {
    const read = await grantedPair('read');
    expect(read.scope).toBe('read');
    const before = await s.catalogue.db
      .selectFrom('comments')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const routes = writeRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(6);
    for (const route of routes) {
      const res = await writeRequest(route, read.access_token);
      const label = `${route.method} ${route.path}`;
      expect(res.status, label).toBe(401);
      expect(await res.json(), label).toEqual({ detail: 'Not authorized' });
      expect(res.headers.get('www-authenticate'), label).toMatch(/error="insufficient_scope"/);
      expect(res.headers.get('www-authenticate'), label).toMatch(/scope="write"/);
    }
    const after = await s.catalogue.db
      .selectFrom('comments')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
    // The read scope still reads.
    expect((await me(read.access_token)).status).toBe(200);
  });

  it('a `read write` token passes the same check (the refusal is the scope, not the route)', async () => {
    const both = await grantedPair('read write');
    const comment = routes('commentSound');
    const res = await writeRequest(comment, both.access_token);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ detail: `Successfully commented sound ${soundId}.` });
  });
});

function routes(operationId: string): AnyRoute {
  const route = writeRoutes().find((r) => r.operationId === operationId);
  if (!route) throw new Error(`no route ${operationId}`);
  return route;
}

describe('refresh tokens', () => {
  it('a replayed (already rotated) refresh token is refused and revokes the pair it was rotated into', async () => {
    const first = await grantedPair('read write');
    const res = await refresh(first.refresh_token);
    expect(res.status).toBe(200);
    const second = (await res.json()) as Pair;
    expect((await me(second.access_token)).status).toBe(200);
    // The thief (or the client, having lost the answer) sends the old refresh token again.
    await expectOAuthError(await refresh(first.refresh_token), 400, 'invalid_grant');
    const after = await me(second.access_token);
    expect(after.status).toBe(401);
    expect(await after.json()).toEqual({ detail: 'Invalid token' });
    await expectOAuthError(await refresh(second.refresh_token), 400, 'invalid_grant');
  });

  it('a replay after several rotations still revokes the current pair', async () => {
    let pair = await grantedPair('read');
    const retired: string[] = [];
    for (let i = 0; i < 3; i++) {
      retired.push(pair.refresh_token);
      pair = (await (await refresh(pair.refresh_token)).json()) as Pair;
    }
    expect((await me(pair.access_token)).status).toBe(200);
    await expectOAuthError(await refresh(retired[0]), 400, 'invalid_grant');
    expect((await me(pair.access_token)).status).toBe(401);
  });

  it('a refresh with an invalid scope answers invalid_scope and leaves the pair working', async () => {
    const pair = await grantedPair('read');
    for (const scope of ['read write', 'write', 'admin', 'read admin', '"read"']) {
      await expectOAuthError(await refresh(pair.refresh_token, { scope }), 400, 'invalid_scope');
      expect((await me(pair.access_token)).status, scope).toBe(200);
    }
    // The refresh token itself still works, once, and rotates.
    const res = await refresh(pair.refresh_token);
    expect(res.status).toBe(200);
    const next = (await res.json()) as Pair;
    expect(next.scope).toBe('read');
    expect((await me(next.access_token)).status).toBe(200);
  });

  it('a refresh may narrow the scope, never widen it', async () => {
    const pair = await grantedPair('read write');
    const res = await refresh(pair.refresh_token, { scope: 'read' });
    expect(res.status).toBe(200);
    const narrowed = (await res.json()) as Pair;
    expect(narrowed.scope).toBe('read');
    await expectOAuthError(
      await refresh(narrowed.refresh_token, { scope: 'read write' }),
      400,
      'invalid_scope',
    );
    const comment = await writeRequest(routes('commentSound'), narrowed.access_token);
    expect(comment.status).toBe(401);
  });

  it("another application's refresh token is refused and revokes nothing", async () => {
    const victim = await grantedPair('read');
    const victimApp = app;
    await newApp();
    await expectOAuthError(await refresh(victim.refresh_token), 400, 'invalid_grant');
    app = victimApp;
    expect((await me(victim.access_token)).status).toBe(200);
  });
});

describe('redirect tricks', () => {
  it('sign-in `next`: no trick gives a Location off the site, signing in or already signed in', async () => {
    const browser = await signedIn();
    for (const next of NEXT_TRICKS) {
      const already = await browser.get(`/apiv2/login/?next=${encodeURIComponent(next)}`);
      const signing = await new WebClient(s.origin, HTTPS).signIn('mallory', WEB_PASSWORD, next);
      for (const res of [already, signing]) {
        expect([302, 303], JSON.stringify(next)).toContain(res.status);
        const location = res.headers.get('location') as string;
        // As the browser reads it: relative to the page that answered.
        const target = new URL(location, `${s.origin}/apiv2/login/`);
        expect(target.origin, `${JSON.stringify(next)} -> ${location}`).toBe(s.origin);
      }
    }
  });

  it('redirect_uri: anything but the registered address is an error page, never a redirect, even with a standing grant', async () => {
    await newApp();
    const browser = await signedIn();
    await exchange(await consent(browser, await browser.get(authorizePath({ scope: 'read' }))));
    for (const redirectUri of REDIRECT_URI_TRICKS) {
      for (const scope of ['read', 'read write']) {
        const res = await browser.get(authorizePath({ scope, redirect_uri: redirectUri }));
        expect(res.status, `${JSON.stringify(redirectUri)} ${scope}`).toBe(400);
        expect(res.headers.get('location')).toBeNull();
      }
      // The consent form's answer with a swapped redirect_uri: no code leaves for it.
      const answer = await browser.post('/apiv2/oauth2/authorize/', {
        client_id: app.client_id,
        response_type: 'code',
        scope: 'read',
        redirect_uri: redirectUri,
        allow: 'Authorize',
      });
      const location = answer.headers.get('location');
      if (location !== null)
        expect(location.startsWith(`${REDIRECT}?`), JSON.stringify(redirectUri)).toBe(true);
      if (location?.includes('code=')) expect(redirectUri).toBe(REDIRECT);
    }
  });

  it('a code issued for the registered address cannot be exchanged naming another', async () => {
    await newApp();
    const browser = await signedIn();
    const code = await consent(
      browser,
      await browser.get(authorizePath({ scope: 'read', redirect_uri: REDIRECT })),
    );
    for (const redirectUri of REDIRECT_URI_TRICKS) {
      const res = await tokenEndpoint({ grant_type: 'authorization_code', code, redirect_uri: redirectUri });
      const body = (await res.json()) as Record<string, string>;
      expect(res.status, JSON.stringify(redirectUri)).toBe(400);
      expect(body.access_token).toBeUndefined();
      expect(['invalid_request', 'invalid_grant']).toContain(body.error);
    }
  });
});
