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

describe.skipIf(!chromiumAvailable())('browseable API in a browser', () => {
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

  it('signs in from /apiv2/, follows a search to a sound and on to its similar sounds', async () => {
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    const page = await context.newPage();
    const root = await page.goto(`${server.origin}/apiv2/`);
    expect(root?.status()).toBe(401);
    await page.locator('main').getByRole('link', { name: 'Sign in' }).click();
    await page.getByLabel('Username or email').fill('carol');
    await page.getByLabel('Password').fill(WEB_PASSWORD);
    await page.getByLabel('Password').press('Enter');
    await page.waitForURL(`${server.origin}/apiv2/`);
    await expect.poll(() => page.locator('h1').textContent()).toBe('The resources of the API');

    await page.getByRole('link', { name: `"${server.origin}/apiv2/search/text/"` }).click();
    await page.waitForURL(`${server.origin}/apiv2/search/text/`);
    const id = server.seeded.ids.bd_808;
    await page
      .locator('pre.json')
      .getByRole('link', { name: String(id), exact: true })
      .click();
    await page.waitForURL(`${server.origin}/apiv2/sounds/${id}/`);
    await expect.poll(() => page.locator('.request code').textContent()).toBe(`GET /apiv2/sounds/${id}/`);
    await saveScreenshot(page, 'browseable-api');

    const similar = `${server.origin}/apiv2/sounds/${id}/similar/`;
    await page.getByRole('link', { name: `"${similar}"` }).click();
    await page.waitForURL(similar);
    await expect.poll(() => page.locator('dl.facts dd').first().textContent()).toBe('200 OK');
    await saveScreenshot(page, 'browseable-api-similar');
    await context.close();
  });
});
