import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApiCredential, PERMISSION_GRANTED_PATH } from '@earshot/services';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addWebUser,
  chromiumAvailable,
  launchChromium,
  saveScreenshot,
  startTestServer,
  type TestServer,
  WEB_PASSWORD,
} from '../support/index.ts';

const STATE = 'xyz 123';

type App = { client_id: string; client_secret: string };

describe.skipIf(!chromiumAvailable())('OAuth2 in a browser', () => {
  let server: TestServer;
  let browser: Browser;
  /** The application's own web server: its redirect URI answers with a plain page. */
  let appServer: http.Server;
  let webApp: App;
  let cliApp: App;
  let webAppToken = '';

  beforeAll(async () => {
    appServer = http.createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end('Sound Map received the answer.');
    });
    await new Promise<void>((resolve) => appServer.listen(0, '127.0.0.1', resolve));
    const appOrigin = `http://127.0.0.1:${(appServer.address() as AddressInfo).port}`;
    [server, browser] = await Promise.all([
      startTestServer({ OAUTH2_HTTPS_ONLY: 'false' }),
      launchChromium(),
    ]);
    const db = server.catalogue.db;
    await Promise.all([addWebUser(db, 'carol'), addWebUser(db, 'dora')]);
    webApp = await createApiCredential(db, {
      username: 'devdan',
      name: 'Sound Map',
      description: 'Puts your field recordings on a map and lets you upload from your phone.',
      redirectUri: `${appOrigin}/callback`,
    });
    cliApp = await createApiCredential(db, {
      username: 'devdan',
      name: 'Field Recorder CLI',
      description: 'Uploads recordings from the command line.',
      redirectUri: `${server.origin}${PERMISSION_GRANTED_PATH}`,
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await new Promise((resolve) => appServer?.close(resolve));
  });

  function authorizeUrl(app: App, state?: string): string {
    const query = new URLSearchParams({ client_id: app.client_id, response_type: 'code' });
    if (state) query.set('state', state);
    return `${server.origin}/apiv2/oauth2/authorize/?${query}`;
  }

  /** Opens the authorize address as a visitor and signs in on the page it leads to. */
  async function signInThenAuthorize(context: BrowserContext, app: App, user: string): Promise<Page> {
    const page = await context.newPage();
    await page.goto(authorizeUrl(app, STATE));
    expect(new URL(page.url()).pathname).toBe('/apiv2/login/');
    await page.getByLabel('Username or email').fill(user);
    await page.getByLabel('Password').fill(WEB_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === '/apiv2/oauth2/authorize/');
    return page;
  }

  async function exchange(app: App, code: string) {
    const res = await fetch(`${server.origin}/apiv2/oauth2/access_token/`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'authorization_code', code, ...app }),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as { access_token: string };
  }

  const me = (token: string) =>
    fetch(`${server.origin}/apiv2/me/`, { headers: { Authorization: `Bearer ${token}` } });

  it('signs in, asks, grants with the keyboard, redirects with a code; the code buys a token for /apiv2/me/', async () => {
    const context = await browser.newContext({ viewport: { width: 900, height: 760 } });
    const page = await signInThenAuthorize(context, webApp, 'carol');
    await expect.poll(() => page.locator('h1').textContent()).toBe('Authorize Sound Map?');
    await expect(page.locator('main').textContent()).resolves.toContain('registered by devdan');
    // The Authorize button has the focus: Enter answers.
    await expect
      .poll(() =>
        page
          .getByRole('button', { name: 'Authorize' })
          .evaluate((el) => el.ownerDocument.activeElement === el),
      )
      .toBe(true);
    await saveScreenshot(page, 'authorize');

    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.pathname === '/callback');
    const answer = new URL(page.url()).searchParams;
    expect(answer.get('state')).toBe(STATE);
    const token = await exchange(webApp, answer.get('code') as string);
    const res = await me(token.access_token);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ username: 'carol', email: 'carol@example.org' });
    webAppToken = token.access_token;
    await context.close();
  });

  it('denies: the application hears error=access_denied with its state', async () => {
    const context = await browser.newContext({ viewport: { width: 900, height: 760 } });
    const page = await signInThenAuthorize(context, webApp, 'dora');
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.waitForURL((url) => url.pathname === '/callback');
    const answer = new URL(page.url()).searchParams;
    expect(answer.get('error')).toBe('access_denied');
    expect(answer.get('state')).toBe(STATE);
    expect(answer.get('code')).toBeNull();
    await context.close();
  });

  it('shows the code on the service’s own page for an application without a web server', async () => {
    const context = await browser.newContext({ viewport: { width: 900, height: 560 } });
    const page = await signInThenAuthorize(context, cliApp, 'carol');
    await page.getByRole('button', { name: 'Authorize' }).click();
    await page.waitForURL((url) => url.pathname === PERMISSION_GRANTED_PATH);
    const field = page.getByLabel('Authorization code');
    const code = await field.inputValue();
    expect(code).toBe(new URL(page.url()).searchParams.get('code'));
    await expect.poll(() => field.evaluate((el) => el.ownerDocument.activeElement === el)).toBe(true);
    await saveScreenshot(page, 'code');
    const token = await exchange(cliApp, code);
    expect((await me(token.access_token)).status).toBe(200);
    await context.close();
  });

  it('lists the authorized applications; revoking one ends its token (401 Invalid token)', async () => {
    const context = await browser.newContext({ viewport: { width: 900, height: 560 } });
    const page = await context.newPage();
    await page.goto(`${server.origin}/home/app_permissions/`);
    await page.getByLabel('Username or email').fill('carol');
    await page.getByLabel('Password').fill(WEB_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${server.origin}/home/app_permissions/`);
    const rows = page.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    await saveScreenshot(page, 'authorized-apps');

    expect((await me(webAppToken)).status).toBe(200);
    await page.getByRole('button', { name: 'Revoke access of Sound Map' }).click();
    await page.waitForURL(/\/home\/app_permissions\/\?revoked=1$/);
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Access revoked.');
    await expect.poll(() => rows.count()).toBe(1);
    await expect(rows.first().textContent()).resolves.toContain('Field Recorder CLI');
    await saveScreenshot(page, 'authorized-apps-revoked');
    await expect.poll(async () => (await me(webAppToken)).status).toBe(401);
    expect(await (await me(webAppToken)).json()).toEqual({ detail: 'Invalid token' });
    await context.close();
  });
});
