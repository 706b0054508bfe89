import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createApiCredential } from '@earshot/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWebUser, startTestServer, type TestServer, WEB_PASSWORD, WebClient } from '../support/index.ts';

// Black-box tests of the OAuth2 pages (docs/api.md "OAuth2"): a browser without JavaScript signs
// in, is asked, answers, and follows the redirects by hand.
const REDIRECT = 'https://app.example/callback';
// Spaces and URL delimiters must come back unchanged (RFC 6749 allows printable ASCII in state).
const STATE = 'st-42 ok&=/?~"<x>';
const execFileAsync = promisify(execFile);
const CLI_MAIN = new URL('../../../cli/src/main.ts', import.meta.url).pathname;

let server: TestServer;
let secure: TestServer;
let app: { client_id: string; client_secret: string };

beforeAll(async () => {
  [server, secure] = await Promise.all([
    startTestServer({ OAUTH2_HTTPS_ONLY: 'false' }),
    startTestServer({ TRUST_PROXY: '1' }), // OAUTH2_HTTPS_ONLY stays on (its default)
  ]);
  await Promise.all([addWebUser(server.catalogue.db, 'carol'), addWebUser(secure.catalogue.db, 'carol')]);
  app = await createApiCredential(server.catalogue.db, {
    username: 'devdan',
    name: 'Sound <App>',
    description: 'Finds field recordings near you.',
    redirectUri: REDIRECT,
  });
}, 120_000);
afterAll(() => Promise.all([server?.stop(), secure?.stop()]));

function authorizePath(extra: Record<string, string> = {}, path = '/apiv2/oauth2/authorize/'): string {
  const query = new URLSearchParams({
    client_id: app.client_id,
    response_type: 'code',
    state: STATE,
    ...extra,
  });
  return `${path}?${query}`;
}

async function signedIn(user = 'carol'): Promise<WebClient> {
  const browser = new WebClient(server.origin);
  expect((await browser.signIn(user)).status).toBe(303);
  return browser;
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', quot: '"', '#39': "'", '#34': '"', amp: '&' };

/** The consent form's hidden fields, as the page sent them. */
function hiddenFields(body: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const m of body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[m[1]] = m[2].replace(/&(lt|gt|quot|#39|#34|amp);/g, (_, e: string) => ENTITIES[e]);
  }
  return fields;
}

function redirectParams(location: string | null): URLSearchParams {
  expect(location).not.toBeNull();
  const url = new URL(location as string);
  expect(url.origin + url.pathname).toBe(REDIRECT);
  return url.searchParams;
}

async function exchange(code: string) {
  return fetch(`${server.origin}/apiv2/oauth2/access_token/`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'authorization_code', code, ...app }),
  });
}

describe('OAuth2 pages (black box)', () => {
  it('sends a visitor to the sign-in page, which comes back to the same authorize request', async () => {
    const browser = new WebClient(server.origin);
    const res = await browser.get(
      authorizePath({ original_path: '/ignored/' }).replace('/authorize/', '/authorize'),
    );
    expect(res.status).toBe(302);
    const login = new URL(res.headers.get('location') as string, server.origin);
    expect(login.pathname).toBe('/apiv2/login/');
    const next = new URL(login.searchParams.get('next') as string, server.origin);
    expect(next.pathname).toBe('/apiv2/oauth2/authorize/');
    expect(Object.fromEntries(next.searchParams)).toEqual({
      client_id: app.client_id,
      response_type: 'code',
      state: STATE,
    });
    const back = await browser.signIn('carol', undefined, login.searchParams.get('next') as string);
    expect(back.headers.get('location')).toBe(login.searchParams.get('next'));
  });

  it('asks, naming the application and its owner, escaped; Authorize redirects with a code and the state unchanged', async () => {
    const browser = await signedIn();
    const page = await browser.get(authorizePath());
    expect(page.status).toBe(200);
    expect(page.body).toContain('Authorize Sound &lt;App&gt;?');
    expect(page.body).toContain('devdan');
    expect(page.body).toContain('Finds field recordings near you.');
    expect(page.body).toContain('name="allow" value="Authorize"'); // upstream's test looks for this
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self' https://app.example");
    const fields = hiddenFields(page.body);
    expect(fields).toMatchObject({ client_id: app.client_id, response_type: 'code', state: STATE });

    const answer = await browser.post('/apiv2/oauth2/authorize/', { ...fields, allow: 'Authorize' });
    expect(answer.status).toBe(302);
    const params = redirectParams(answer.headers.get('location'));
    expect(params.get('state')).toBe(STATE);
    const res = await exchange(params.get('code') as string);
    expect(res.status).toBe(200);
  });

  it('grants automatically when the pair already holds a token: no consent page the second time', async () => {
    const browser = await signedIn();
    const res = await browser.get(authorizePath({ state: 'again' }));
    expect(res.status).toBe(302);
    const params = redirectParams(res.headers.get('location'));
    expect(params.get('state')).toBe('again');
    expect(params.get('code')).toBeTruthy();
  });

  it('Deny redirects with error=access_denied and the state unchanged', async () => {
    await addWebUser(server.catalogue.db, 'erin');
    const browser = await signedIn('erin');
    const page = await browser.get(authorizePath());
    expect(page.status).toBe(200);
    const answer = await browser.post('/apiv2/oauth2/authorize/', {
      ...hiddenFields(page.body),
      deny: 'Deny',
    });
    expect(answer.status).toBe(302);
    const params = redirectParams(answer.headers.get('location'));
    expect(params.get('error')).toBe('access_denied');
    expect(params.get('state')).toBe(STATE);
    expect(params.get('code')).toBeNull();
  });

  it('refuses the consent form without its CSRF token (403 page, no redirect)', async () => {
    await addWebUser(server.catalogue.db, 'fay');
    const browser = await signedIn('fay');
    const page = await browser.get(authorizePath());
    const fields = { ...hiddenFields(page.body), allow: 'Authorize' };
    for (const csrf_token of ['', 'forged']) {
      const res = await browser.post('/apiv2/oauth2/authorize/', { ...fields, csrf_token });
      expect(res.status).toBe(403);
      expect(res.headers.get('location')).toBeNull();
      expect(res.body).toContain('This form has expired');
    }
    // Another site's form: no session cookie at all.
    const foreign = await new WebClient(server.origin).post('/apiv2/oauth2/authorize/', fields);
    expect(foreign.status).toBe(403);
  });

  it('logout_and_authorize ends the web session, then asks for a sign-in coming back to authorize', async () => {
    const browser = await signedIn();
    const res = await browser.get(authorizePath({}, '/apiv2/oauth2/logout_and_authorize/'));
    expect(res.status).toBe(302);
    const login = new URL(res.headers.get('location') as string, server.origin);
    expect(login.pathname).toBe('/apiv2/login/');
    expect(new URL(login.searchParams.get('next') as string, server.origin).pathname).toBe(
      '/apiv2/oauth2/authorize/',
    );
    expect(browser.cookies.size).toBe(0); // the session cookie was cleared
    expect((await browser.get('/apiv2/account/')).status).toBe(302);
  });

  it('shows an error page, never a redirect, for an unknown client_id or a foreign redirect_uri', async () => {
    const browser = await signedIn();
    const unknown = await browser.get(authorizePath({ client_id: 'no-such-client' }));
    expect(unknown.status).toBe(400);
    expect(unknown.headers.get('location')).toBeNull();
    expect(unknown.body).toContain('Invalid client_id parameter value');
    const foreign = await browser.get(authorizePath({ redirect_uri: 'https://evil.example/cb' }));
    expect(foreign.status).toBe(400);
    expect(foreign.headers.get('location')).toBeNull();
    expect(foreign.body).toContain('Mismatching redirect URI');
    // Posting the consent form with a foreign redirect_uri does not redirect either.
    await browser.get('/apiv2/account/');
    const posted = await browser.post('/apiv2/oauth2/authorize/', {
      client_id: app.client_id,
      response_type: 'code',
      redirect_uri: 'https://evil.example/cb',
      allow: 'Authorize',
    });
    expect(posted.status).toBe(400);
    expect(posted.headers.get('location')).toBeNull();
    // An unknown client without a session: the same page, not a sign-in first.
    const visitor = await new WebClient(server.origin).get(authorizePath({ client_id: 'nope' }));
    expect(visitor.status).toBe(400);
  });

  it('redirects an unsupported response_type to the application with the error and the state', async () => {
    const browser = await signedIn();
    const res = await browser.get(authorizePath({ response_type: 'token' }));
    expect(res.status).toBe(302);
    const params = redirectParams(res.headers.get('location'));
    expect(params.get('error')).toBe('unsupported_response_type');
    expect(params.get('state')).toBe(STATE);
  });

  it('refuses a repeated parameter with an error page', async () => {
    const browser = await signedIn();
    const res = await browser.get(`${authorizePath()}&state=second`);
    expect(res.status).toBe(400);
    expect(res.body).toContain('The parameter state was given more than once.');
  });

  it('shows the code (escaped), or the denial, on the service’s own code page', async () => {
    const browser = new WebClient(server.origin);
    const code = await browser.get('/home/app_permissions/permission_granted/?code=abc"<x>123');
    expect(code.status).toBe(200);
    expect(code.body).toContain('>abc&quot;&lt;x&gt;123</textarea>');
    expect(code.body).toContain('It works once and expires in 10 minutes.');
    expect(code.headers.get('cache-control')).toBe('no-store');
    const denied = await browser.get('/home/app_permissions/permission_granted/?error=access_denied');
    expect(denied.body).toContain('You denied the application access');
  });

  it('a credential made by `earshot credentials create` without a redirect URL sends the code to this server’s own code page, whatever its port', async () => {
    // The CLI, run as a newcomer does: the server's data folder, no PORT given to it.
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: server.dataDir, LOG_LEVEL: 'error' };
    for (const name of ['PORT', 'HOST', 'PUBLIC_URL', 'REDIS_URL', 'DATABASE_URL']) delete env[name];
    // Asynchronously: the catalogue it joins is hosted by this very process.
    const cli = await execFileAsync(
      process.execPath,
      ['--import', 'tsx', CLI_MAIN, 'credentials', 'create', '--user', 'carol', '--name', 'Script', '--json'],
      { env, encoding: 'utf8', timeout: 120_000 },
    );
    const made = JSON.parse(cli.stdout) as { client_id: string; client_secret: string; redirect_uri: string };
    expect(new URL(made.redirect_uri).pathname).toBe('/home/app_permissions/permission_granted/');
    const browser = await signedIn();
    const query = new URLSearchParams({ client_id: made.client_id, response_type: 'code', state: 's' });
    const page = await browser.get(`/apiv2/oauth2/authorize/?${query}`);
    expect(page.status).toBe(200);
    const answer = await browser.post('/apiv2/oauth2/authorize/', {
      ...hiddenFields(page.body),
      allow: 'Authorize',
    });
    expect(answer.status).toBe(302);
    // The code page on the address this browser used (a path it resolves against the page's).
    const location = new URL(answer.headers.get('location') as string, server.origin);
    expect(location.origin).toBe(server.origin);
    expect(location.pathname).toBe('/home/app_permissions/permission_granted/');
    const shown = await browser.get(`${location.pathname}${location.search}`);
    expect(shown.status).toBe(200);
    const code = location.searchParams.get('code') as string;
    expect(shown.body).toContain(`>${code}</textarea>`);
    const token = await fetch(`${server.origin}/apiv2/oauth2/access_token/`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        client_id: made.client_id,
        client_secret: made.client_secret,
      }),
    });
    expect(token.status).toBe(200);
  }, 180_000);

  it('lists authorized applications; revoking needs the CSRF token and ends the token (401 Invalid token)', async () => {
    await addWebUser(server.catalogue.db, 'gus');
    const browser = await signedIn('gus');
    const page = await browser.get(authorizePath());
    const answer = await browser.post('/apiv2/oauth2/authorize/', {
      ...hiddenFields(page.body),
      allow: 'Authorize',
    });
    const token = (await (
      await exchange(redirectParams(answer.headers.get('location')).get('code') as string)
    ).json()) as {
      access_token: string;
    };
    const me = () =>
      fetch(`${server.origin}/apiv2/me/`, { headers: { Authorization: `Bearer ${token.access_token}` } });
    expect((await me()).status).toBe(200);

    const list = await browser.get('/home/app_permissions/');
    expect(list.status).toBe(200);
    expect(list.body).toContain('Sound &lt;App&gt;');
    const action = `/home/app_permissions/revoke_permission/${app.client_id}/`;
    expect(list.body).toContain(`action="${action}"`);
    expect((await browser.post(action, { csrf_token: 'forged' })).status).toBe(403);
    expect((await me()).status).toBe(200);

    const revoked = await browser.post(action);
    expect(revoked.status).toBe(303);
    expect(revoked.headers.get('location')).toBe('/home/app_permissions/?revoked=1');
    const after = await browser.get('/home/app_permissions/?revoked=1');
    expect(after.body).toContain('Access revoked.');
    expect(after.body).not.toContain('Sound &lt;App&gt;');
    await expect.poll(async () => (await me()).status).toBe(401);
    expect(await (await me()).json()).toEqual({ detail: 'Invalid token' });
    // The next authorization asks again.
    expect((await browser.get(authorizePath())).status).toBe(200);
  });

  it('sends a visitor of the settings page to the sign-in page; an unknown client id is a 404 page', async () => {
    const visitor = await new WebClient(server.origin).get('/home/app_permissions/');
    expect(visitor.status).toBe(302);
    expect(visitor.headers.get('location')).toBe('/apiv2/login/?next=%2Fhome%2Fapp_permissions%2F');
    const browser = await signedIn();
    await browser.get('/home/app_permissions/');
    expect((await browser.post('/home/app_permissions/revoke_permission/nope/')).status).toBe(404);
  });

  it('with OAUTH2_HTTPS_ONLY, the pages over plain http are a 403 page; X-Forwarded-Proto https passes', async () => {
    for (const path of [
      '/apiv2/oauth2/authorize/?client_id=x&response_type=code',
      '/apiv2/oauth2/logout_and_authorize/',
      '/home/app_permissions/permission_granted/?code=abc',
      '/home/app_permissions/',
    ]) {
      const plain = await new WebClient(secure.origin).get(path);
      expect(plain.status, path).toBe(403);
      expect(plain.body).toContain('This resource requires a secure connection (https)');
      expect(plain.setCookies).toEqual([]);
    }
    const proxied = new WebClient(secure.origin, { 'X-Forwarded-Proto': 'https' });
    const code = await proxied.get('/home/app_permissions/permission_granted/?code=abc');
    expect(code.status).toBe(200);
    const authorize = await proxied.get('/apiv2/oauth2/authorize/?client_id=x&response_type=code');
    expect(authorize.status).toBe(400); // past the https check: an unknown client
    expect(authorize.body).toContain('Invalid client_id parameter value');
  });

  it('with OAUTH2_HTTPS_ONLY, the sign-in page takes no password over plain http from another machine', async () => {
    const remote = { 'X-Forwarded-For': '203.0.113.7' };
    const plain = new WebClient(secure.origin, remote);
    const page = await plain.get('/apiv2/login/');
    expect(page.status).toBe(403);
    expect(page.body).toContain('This resource requires a secure connection (https)');
    expect(page.body).not.toContain('name="password"');
    expect(page.setCookies).toEqual([]);
    // The form posted anyway is refused before the password is read: no session comes back.
    const posted = await plain.request(
      'POST',
      '/apiv2/login/',
      new URLSearchParams({ login: 'carol', password: WEB_PASSWORD }),
    );
    expect(posted.status).toBe(403);
    expect(posted.setCookies).toEqual([]);
    // Over https (the proxy says so) it signs in.
    const proxied = new WebClient(secure.origin, { ...remote, 'X-Forwarded-Proto': 'https' });
    expect((await proxied.get('/apiv2/login/')).status).toBe(200);
    expect((await proxied.signIn('carol')).status).toBe(303);
    // Behind a proxy (TRUST_PROXY) no client counts as local, as for /metrics.
    expect((await new WebClient(secure.origin).get('/apiv2/login/')).status).toBe(403);
  });

  it('with OAUTH2_HTTPS_ONLY and no proxy, a browser on the machine itself still signs in over http', async () => {
    // `npm start` on 127.0.0.1: the password never crosses a network, and browsers count
    // localhost a secure context too.
    const local = await startTestServer();
    try {
      await addWebUser(local.catalogue.db, 'carol');
      const browser = new WebClient(local.origin);
      expect((await browser.get('/apiv2/login/')).status).toBe(200);
      expect((await browser.signIn('carol')).status).toBe(303);
    } finally {
      await local.stop();
    }
  }, 120_000);
});
