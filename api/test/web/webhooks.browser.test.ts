import { addComment } from '@earshot/catalogue';
import { insertSeedSound } from '@earshot/catalogue/testing';
import { deliverWebhook, httpWebhookSender } from '@earshot/services';
import { WebhookReceiver } from '@earshot/services/testing';
import type { Browser, Page } from 'playwright-core';
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

/**
 * A person manages their webhooks in a browser: adds one (a wrong URL first), copies its secret,
 * reads its delivery log after real deliveries to a real receiver, sees it switched off after it
 * kept failing, switches it on, deletes it. And the search box offers completions as one types.
 */
describe.skipIf(!chromiumAvailable())('webhook pages and search completions in a browser', () => {
  let server: TestServer;
  let browser: Browser;
  const receiver = new WebhookReceiver();
  let carol: number;
  let dave: number;

  beforeAll(async () => {
    [server, browser] = await Promise.all([
      startTestServer({ WEBHOOK_ALLOW_PRIVATE: 'true' }),
      launchChromium(),
      receiver.start(),
    ]);
    carol = await addWebUser(server.catalogue.db, 'carol');
    dave = await addWebUser(server.catalogue.db, 'dave');
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await receiver.stop();
  });

  async function signIn(page: Page, next: string): Promise<void> {
    await page.goto(`${server.origin}${next}`);
    await page.getByLabel('Username or email').fill('carol');
    await page.getByLabel('Password').fill(WEB_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${server.origin}${next}`);
  }

  it('adds, reads the log of, switches on and deletes a webhook', async () => {
    const db = server.catalogue.db;
    const sound = await insertSeedSound(db, {
      user_id: carol,
      name: 'Creaky door',
      license: 'Creative Commons 0',
      original_filename: 'door.wav',
      original_path: 'x/door.wav',
      type: 'wav',
      processing_state: 'Processed',
      moderation_state: 'ok',
    });
    const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
    const page = await context.newPage();
    await signIn(page, '/apiv2/account/webhooks/');
    await expect.poll(() => page.getByText('You have no webhooks yet.').count()).toBe(1);

    await page.getByLabel('URL').fill('ftp://nowhere');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('only http and https');
    expect(await page.getByLabel('URL').getAttribute('aria-invalid')).toBe('true');

    await page.getByLabel('URL').fill(receiver.url);
    await page.getByLabel('Bookmarked').uncheck();
    await page.getByLabel('URL').press('Enter');
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Copy its signing secret');
    const secret = (await page.locator('tr.fresh code.secret').nth(1).textContent()) as string;
    expect(secret).toMatch(/^whsec_/);
    await saveScreenshot(page, 'webhooks', { fullPage: true });

    // Two events, delivered to the receiver; then it fails until the webhook is switched off.
    receiver.secret = secret;
    const id = Number(
      /\/(\d+)\/$/.exec(
        (await page.getByRole('link', { name: /Delivery log/ }).getAttribute('href')) as string,
      )?.[1],
    );
    await addComment(db, { soundId: sound, userId: dave, comment: 'spooky' });
    const options = { sender: httpWebhookSender, allowPrivate: true, timeoutMs: 2_000, backoffMs: () => 0 };
    expect(await deliverWebhook(db, id, options)).toBe('caught-up');
    expect(receiver.accepted.at(-1)?.verified).toBe(true);
    receiver.failWith = 503;
    await addComment(db, { soundId: sound, userId: dave, comment: 'again' });
    expect(await deliverWebhook(db, id, { ...options, disableAfterMs: 200 })).toBe('retrying');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await deliverWebhook(db, id, { ...options, disableAfterMs: 200 })).toBe('disabled');

    await page.getByRole('link', { name: `Delivery log of ${receiver.url}` }).click();
    await page.getByRole('heading', { name: 'Delivery log' }).waitFor();
    const rows = page.locator('table.deliveries tbody tr');
    await expect.poll(() => rows.count()).toBe(3);
    expect(await rows.nth(0).textContent()).toContain('Refused (503)');
    expect(await rows.nth(2).textContent()).toContain('Delivered (204)');
    await expect.poll(() => page.getByText(/Switched off .*every delivery attempt failed/).count()).toBe(1);
    await saveScreenshot(page, 'webhook-log', { fullPage: true });

    receiver.failWith = undefined;
    await page.getByRole('button', { name: 'Switch on' }).click();
    await page.waitForURL(/\?enabled=1$/);
    await expect.poll(() => page.getByRole('status').textContent()).toContain('on again');
    expect(await deliverWebhook(db, id, options)).toBe('caught-up');
    expect(receiver.accepted.at(-1)?.json.data.comment).toBe('again');

    await page.getByRole('button', { name: `Delete ${receiver.url}` }).click();
    await page.waitForURL(/\?deleted=1$/);
    await expect.poll(() => page.getByText('You have no webhooks yet.').count()).toBe(1);
    await context.close();
  });

  it('offers tags and names completing the last word typed in the search box', async () => {
    const context = await browser.newContext({ viewport: { width: 1000, height: 700 } });
    const page = await context.newPage();
    await page.goto(`${server.origin}/search/`);
    const box = page.getByRole('combobox', { name: 'Search' });
    await box.pressSequentially('dr');
    const options = () =>
      page
        .locator('#q-suggestions option')
        .evaluateAll((els) => els.map((el) => (el as unknown as { value: string }).value));
    await expect.poll(options).toContain('drum');
    await box.fill('');
    await box.pressSequentially('fat k');
    await expect.poll(options).toEqual(['fat kick']);
    // The same answer the page's JSON gives, and a 400 for nothing typed.
    const json = (await (await fetch(`${server.origin}/search/suggest.json?q=dr`)).json()) as {
      tags: unknown[];
    };
    expect(json.tags[0]).toEqual({ tag: 'drum', sounds: expect.any(Number) });
    expect((await fetch(`${server.origin}/search/suggest.json?q=`)).status).toBe(400);
    await saveScreenshot(page, 'search-suggestions');
    await context.close();
  });
});
