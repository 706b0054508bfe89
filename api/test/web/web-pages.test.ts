import { SIGN_IN_LIMITS } from '@earshot/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../../src/framework/auth/session-strategy.ts';
import { addWebUser, startTestServer, type TestServer, WEB_PASSWORD, WebClient } from '../support/index.ts';

/** The session cookie's Set-Cookie line of a response. */
function sessionCookie(lines: string[]): string | undefined {
  return lines.find((l) => l.startsWith(`${SESSION_COOKIE}=`));
}

describe('web pages (black box)', () => {
  let server: TestServer;
  let proxied: TestServer;

  beforeAll(async () => {
    [server, proxied] = await Promise.all([
      startTestServer(),
      startTestServer({ TRUST_PROXY: '1', SIGNUP_ENABLED: '1' }),
    ]);
    await Promise.all([addWebUser(server.catalogue.db, 'carol'), addWebUser(proxied.catalogue.db, 'carol')]);
  });
  afterAll(async () => {
    await Promise.all([server?.stop(), proxied?.stop()]);
  });

  it('signs in by username or email, lands on `next` or the account page, and shows the user', async () => {
    const browser = new WebClient(server.origin);
    const signedIn = await browser.signIn('carol', WEB_PASSWORD, '/apiv2/account/?tab=1');
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe('/apiv2/account/?tab=1');
    const account = await browser.get('/apiv2/account/');
    expect(account.status).toBe(200);
    expect(account.body).toContain('Signed in as carol');
    const byEmail = await new WebClient(server.origin).signIn('CAROL@example.org');
    expect(byEmail.headers.get('location')).toBe('/apiv2/account/');
  });

  it('never redirects off-site after signing in', async () => {
    for (const next of [
      '//evil.example/x',
      'https://evil.example/',
      '/\\evil.example',
      'javascript:alert(1)',
    ]) {
      const res = await new WebClient(server.origin).signIn('carol', WEB_PASSWORD, next);
      expect(res.headers.get('location'), next).toBe('/apiv2/account/');
    }
  });

  it('shows the form again with an error (400) for a wrong password or an unknown account', async () => {
    for (const login of ['carol', 'nobody-here']) {
      const browser = new WebClient(server.origin);
      const res = await browser.signIn(login, 'wrong password');
      expect(res.status).toBe(400);
      expect(res.body).toContain('do not match an account');
      expect(res.body).toContain(`value="${login}"`);
      expect(browser.cookies.size).toBe(1); // the visitor's session, not a signed-in one
      expect((await browser.get('/apiv2/account/')).status).toBe(302);
    }
  });

  it('escapes what the visitor typed', async () => {
    const res = await new WebClient(server.origin).signIn('"><script>alert(1)</script>', 'x');
    expect(res.body).not.toContain('<script>alert(1)');
    expect(res.body).toContain('&quot;&gt;&lt;script&gt;');
  });

  it('refuses a form without its CSRF token, with a wrong one, or without a session (403 page)', async () => {
    const browser = new WebClient(server.origin);
    await browser.get('/apiv2/login/');
    const missing = await browser.post('/apiv2/login/', {
      csrf_token: '',
      login: 'carol',
      password: WEB_PASSWORD,
    });
    const wrong = await browser.post('/apiv2/login/', {
      // Another last character (not always 'A': a token ending in 'A' would stay right).
      csrf_token: `${browser.csrfToken.slice(0, -1)}${browser.csrfToken.endsWith('A') ? 'B' : 'A'}`,
      login: 'carol',
      password: WEB_PASSWORD,
    });
    const stranger = new WebClient(server.origin);
    stranger.csrfToken = browser.csrfToken; // another browser's token, without its cookie
    const noSession = await stranger.post('/apiv2/login/', { login: 'carol', password: WEB_PASSWORD });
    for (const res of [missing, wrong, noSession]) {
      expect(res.status).toBe(403);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.body).toContain('This form has expired');
      expect(sessionCookie(res.setCookies)).toBeUndefined();
    }
    // Signed in, the sign-out form needs the token too.
    await browser.signIn('carol');
    const signOut = await browser.post('/apiv2/logout/', { csrf_token: 'forged' });
    expect(signOut.status).toBe(403);
    expect((await browser.get('/apiv2/account/')).status).toBe(200);
  });

  it('gives a new session id at sign-in: the one before is not the one after, and is dead', async () => {
    const browser = new WebClient(server.origin);
    await browser.get('/apiv2/login/');
    const before = browser.cookies.get(SESSION_COOKIE);
    const tokenBefore = browser.csrfToken;
    expect(before).toBeTruthy();
    await browser.post('/apiv2/login/', { login: 'carol', password: WEB_PASSWORD });
    const after = browser.cookies.get(SESSION_COOKIE);
    expect(after).toBeTruthy();
    expect(after).not.toBe(before);
    const account = await browser.get('/apiv2/account/');
    expect(browser.csrfToken).not.toBe(tokenBefore);
    expect(account.status).toBe(200);
    // An attacker who planted `before` is not signed in.
    const planted = new WebClient(server.origin);
    planted.cookies.set(SESSION_COOKIE, before as string);
    expect((await planted.get('/apiv2/account/')).status).toBe(302);
  });

  it('sets HttpOnly, SameSite=Lax and Path=/ on the cookie, and Secure only over https', async () => {
    const plain = await new WebClient(server.origin).get('/apiv2/login/');
    const cookie = sessionCookie(plain.setCookies) ?? '';
    expect(cookie).toMatch(/; httponly/i);
    expect(cookie).toMatch(/; samesite=lax/i);
    expect(cookie).toMatch(/; path=\//i);
    expect(cookie).not.toMatch(/; secure/i);
    // Behind a trusted proxy, X-Forwarded-Proto decides.
    const https = new WebClient(proxied.origin, { 'X-Forwarded-Proto': 'https' });
    expect(sessionCookie((await https.get('/apiv2/login/')).setCookies)).toMatch(/; secure/i);
    const signedIn = await https.post('/apiv2/login/', { login: 'carol', password: WEB_PASSWORD });
    const signedInCookie = sessionCookie(signedIn.setCookies);
    for (const flag of [/; secure/i, /; samesite=lax/i, /; httponly/i]) expect(signedInCookie).toMatch(flag);
    // Plain http behind the proxy: with OAUTH2_HTTPS_ONLY the sign-in page is refused, no cookie set.
    const http = await new WebClient(proxied.origin, { 'X-Forwarded-Proto': 'http' }).get('/apiv2/login/');
    expect(http.status).toBe(403);
    expect(http.setCookies).toEqual([]);
    // Without TRUST_PROXY the header is ignored.
    const spoofed = new WebClient(server.origin, { 'X-Forwarded-Proto': 'https' });
    expect(sessionCookie((await spoofed.get('/apiv2/login/')).setCookies)).not.toMatch(/; secure/i);
  });

  it('throttles wrong passwords: after 5 failures for an account from an address, 429 even with the right one', async () => {
    await addWebUser(proxied.catalogue.db, 'dave');
    const from = (address: string) =>
      new WebClient(proxied.origin, { 'X-Forwarded-For': address, 'X-Forwarded-Proto': 'https' });
    const attacker = from('203.0.113.7');
    for (let i = 0; i < SIGN_IN_LIMITS.perAccountAndAddress.points; i++) {
      expect((await attacker.signIn('dave', `guess ${i}`)).status).toBe(400);
    }
    const throttled = await attacker.signIn('dave', WEB_PASSWORD);
    expect(throttled.status).toBe(429);
    expect(throttled.body).toMatch(
      /Too many failed sign-ins for this account from your network\. Try again in 1[45] minutes\./,
    );
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(800);
    // The person, from elsewhere, still gets in; the same address may still try other accounts.
    expect((await from('198.51.100.2').signIn('dave')).status).toBe(303);
    expect((await attacker.signIn('carol')).status).toBe(303);
  });

  it('ends the session at sign-out: confirm page on a GET from another site, the cookie cleared, the old id dead', async () => {
    const browser = new WebClient(server.origin);
    await browser.signIn('carol');
    const id = browser.cookies.get(SESSION_COOKIE) as string;
    for (const site of ['cross-site', 'same-site']) {
      const confirm = await browser.request('GET', '/apiv2/logout/', undefined, { 'Sec-Fetch-Site': site });
      expect(confirm.status).toBe(200);
      expect(confirm.body).toContain('Sign out of earshot in this browser?');
    }
    expect((await browser.get('/apiv2/account/')).status).toBe(200);
    const out = await browser.post('/apiv2/logout/');
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/apiv2/login/?signed_out=1');
    expect(sessionCookie(out.setCookies)).toMatch(/expires=Thu, 01 Jan 1970/i);
    expect((await browser.get('/apiv2/login/?signed_out=1')).body).toContain('You are signed out.');
    const replay = new WebClient(server.origin);
    replay.cookies.set(SESSION_COOKIE, id);
    const after = await replay.get('/apiv2/account/');
    expect(after.status).toBe(302);
    expect(after.headers.get('location')).toBe('/apiv2/login/?next=%2Fapiv2%2Faccount%2F');
    // Not signed in, the sign-out page sends to the sign-in page.
    expect((await new WebClient(server.origin).get('/apiv2/logout/')).status).toBe(302);
  });

  it('signs out on a GET from our own pages or a client that names no site, with a 302 as upstream', async () => {
    const cases: Record<string, string>[] = [
      { 'Sec-Fetch-Site': 'same-origin' },
      { 'Sec-Fetch-Site': 'none' },
      {},
    ];
    for (const headers of cases) {
      const browser = new WebClient(server.origin);
      await browser.signIn('carol');
      const id = browser.cookies.get(SESSION_COOKIE) as string;
      const out = await browser.request('GET', '/apiv2/logout/', undefined, headers);
      expect(out.status).toBe(302);
      expect(out.headers.get('location')).toBe('/apiv2/login/?signed_out=1');
      expect(sessionCookie(out.setCookies)).toMatch(/expires=Thu, 01 Jan 1970/i);
      const replay = new WebClient(server.origin);
      replay.cookies.set(SESSION_COOKIE, id);
      expect((await replay.get('/apiv2/account/')).status).toBe(302);
    }
  });

  it('has no sign-up page unless SIGNUP_ENABLED (404), and signs the new user in when it is on', async () => {
    const off = new WebClient(server.origin);
    expect((await off.get('/apiv2/signup/')).status).toBe(404);
    expect((await off.post('/apiv2/signup/', { username: 'erin' })).status).toBe(404);
    const on = new WebClient(proxied.origin, { 'X-Forwarded-Proto': 'https' });
    expect((await on.get('/apiv2/signup/')).status).toBe(200);
    const short = await on.post('/apiv2/signup/', {
      username: 'erin',
      email: 'erin@example.org',
      password: 'short',
    });
    expect(short.status).toBe(400);
    expect(short.body).toContain('at least 8 characters');
    const taken = await on.post('/apiv2/signup/', {
      username: 'Carol',
      email: 'c2@example.org',
      password: WEB_PASSWORD,
    });
    expect(taken.status).toBe(409);
    const created = await on.post('/apiv2/signup/', {
      username: 'erin',
      email: 'erin@example.org',
      password: WEB_PASSWORD,
    });
    expect(created.status).toBe(303);
    expect((await on.get('/apiv2/account/')).body).toContain('Signed in as erin');
    const again = new WebClient(proxied.origin, { 'X-Forwarded-Proto': 'https' });
    expect((await again.signIn('erin@example.org')).status).toBe(303);
  });

  it('serves pages with protective headers and the stylesheet with a long cache', async () => {
    const page = await new WebClient(server.origin).get('/apiv2/login/');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.body).toContain('<html lang="en">');
    const href = /<link rel="stylesheet" href="([^"]+)"/.exec(page.body)?.[1] as string;
    const css = await fetch(new URL(href.replace(/&amp;/g, '&'), server.origin));
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    expect(css.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });
});
