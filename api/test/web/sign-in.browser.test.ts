import type { Browser } from 'playwright-core';
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

describe.skipIf(!chromiumAvailable())('sign-in in a browser', () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer(), launchChromium()]);
    await addWebUser(server.catalogue.db, 'carol');
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('signs in with the keyboard, shows the signed-in page, signs out with the mouse', async () => {
    const context = await browser.newContext({ viewport: { width: 900, height: 620 } });
    const page = await context.newPage();
    await page.goto(`${server.origin}/apiv2/account/`);
    // A visitor is sent to the sign-in page, which will bring them back.
    expect(new URL(page.url()).pathname).toBe('/apiv2/login/');
    expect(new URL(page.url()).searchParams.get('next')).toBe('/apiv2/account/');
    await expect
      .poll(() => page.locator('#login').evaluate((el) => el.ownerDocument.activeElement === el))
      .toBe(true);
    await saveScreenshot(page, 'sign-in');

    await page.keyboard.type('carol');
    await page.keyboard.press('Tab');
    await page.keyboard.type(WEB_PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${server.origin}/apiv2/account/`);
    await expect.poll(() => page.locator('h1').textContent()).toBe('Signed in as carol');
    await saveScreenshot(page, 'signed-in');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/apiv2\/login\/\?signed_out=1$/);
    await expect.poll(() => page.getByRole('status').textContent()).toBe('You are signed out.');
    await page.goto(`${server.origin}/apiv2/account/`);
    expect(new URL(page.url()).pathname).toBe('/apiv2/login/');
    await context.close();
  });

  it('shows an error for a wrong password and keeps the login name', async () => {
    const context = await browser.newContext({ viewport: { width: 900, height: 620 } });
    const page = await context.newPage();
    await page.goto(`${server.origin}/apiv2/login/`);
    await page.getByLabel('Username or email').fill('carol');
    await page.getByLabel('Password').fill('not my password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe('The username or email and password do not match an account.');
    expect(await page.getByLabel('Username or email').inputValue()).toBe('carol');
    await saveScreenshot(page, 'sign-in-error');
    await context.close();
  });

  it('refuses a form whose CSRF token was tampered with, with a page that says what to do', async () => {
    const context = await browser.newContext({ viewport: { width: 900, height: 520 } });
    const page = await context.newPage();
    await page.goto(`${server.origin}/apiv2/login/`);
    await page.locator('input[name="csrf_token"]').evaluate((el) => el.setAttribute('value', 'forged'));
    await page.getByLabel('Username or email').fill('carol');
    await page.getByLabel('Password').fill(WEB_PASSWORD);
    const response = page.waitForResponse((r) => r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect((await response).status()).toBe(403);
    await expect.poll(() => page.locator('h1').textContent()).toBe('This form has expired');
    await saveScreenshot(page, 'csrf-refused');
    await context.close();
  });

  it('asks before signing out when another site links to the sign-out address', async () => {
    const context = await browser.newContext({ viewport: { width: 900, height: 520 } });
    const page = await context.newPage();
    await page.goto(`${server.origin}/apiv2/login/`);
    await page.getByLabel('Username or email').fill('carol@example.org');
    await page.getByLabel('Password').fill(WEB_PASSWORD);
    await page.getByLabel('Password').press('Enter');
    await page.waitForURL(`${server.origin}/apiv2/account/`);
    // A page of another origin (a data: URL is one) links to the sign-out address.
    await page.goto(`data:text/html,<a href="${server.origin}/apiv2/logout/">sign out</a>`);
    await page.getByRole('link', { name: 'sign out' }).click();
    await page.waitForURL(`${server.origin}/apiv2/logout/`);
    await saveScreenshot(page, 'sign-out');
    await page.locator('main').getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/signed_out=1$/);
    await context.close();
  });
});
