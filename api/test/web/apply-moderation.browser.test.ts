import { createUser } from '@earshot/services';
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

describe.skipIf(!chromiumAvailable())('credential and moderation pages in a browser', () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer(), launchChromium()]);
    await addWebUser(server.catalogue.db, 'carol');
    await createUser(server.catalogue.db, {
      username: 'mona',
      email: 'mona@example.org',
      password: WEB_PASSWORD,
      isModerator: true,
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function signIn(page: Page, username: string, next: string): Promise<void> {
    await page.goto(`${server.origin}${next}`);
    await page.getByLabel('Username or email').fill(username);
    await page.getByLabel('Password').fill(WEB_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${server.origin}${next}`);
  }

  it('asks for a credential with the keyboard, sees its key, revokes it', async () => {
    const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
    const page = await context.newPage();
    await signIn(page, 'carol', '/apiv2/apply/');
    // The first field has the focus (autofocus applies a moment after the page loads): type, Tab, type.
    await page.waitForFunction("document.activeElement !== null && document.activeElement.id === 'name'");
    await page.keyboard.type('Field recorder');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Uploads my recordings');
    await page.keyboard.press('Tab');
    await page.keyboard.type('not a url');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#redirect_uri-error').textContent()).toContain('http');
    await page.getByLabel('Redirect URL').fill('https://recorder.example.org/oauth/callback');
    await page.getByRole('button', { name: 'Create credential' }).click();
    // The answer to the form is the page with the new key in full (it is shown this once).
    await page.getByRole('button', { name: 'Create credential' }).waitFor();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Field recorder');
    const key = await page.locator('tr.fresh code.secret').nth(1).textContent();
    expect(key).toMatch(/^[A-Za-z0-9]{40}$/);
    await saveScreenshot(page, 'apply', { fullPage: true });

    await page.getByRole('button', { name: 'Revoke Field recorder' }).click();
    await page.waitForURL(/\?revoked=1$/);
    await expect.poll(() => page.getByRole('status').textContent()).toContain('no longer work');
    const res = await fetch(`${server.origin}/apiv2/sounds/${server.seeded.ids.bd_808}/?token=${key}`);
    expect(res.status).toBe(401);
    await context.close();
  });

  it('plays a pending sound, shows its images, and rejects it with a reason', async () => {
    const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
    const page = await context.newPage();
    await signIn(page, 'mona', '/apiv2/moderation/');
    const id = server.seeded.ids.hat_sci;
    const card = page.locator(`#sound-${id}`);
    await expect.poll(() => card.getByRole('heading').textContent()).toBe('Metal hat');
    // The player can read the preview (a moderator-only address) and the images are loaded.
    await expect
      .poll(() =>
        card.locator('audio').evaluate((el) => {
          const audio = el as unknown as { readyState: number; duration: number };
          return audio.readyState >= 1 && audio.duration > 0;
        }),
      )
      .toBe(true);
    for (const alt of ['Waveform of Metal hat', 'Spectrogram of Metal hat']) {
      await expect
        .poll(() =>
          card.getByAltText(alt).evaluate((el) => (el as unknown as { naturalWidth: number }).naturalWidth),
        )
        .toBeGreaterThan(0);
    }
    await card.getByLabel('Reason for rejecting').fill('Too quiet to be useful');
    await saveScreenshot(page, 'moderation', { fullPage: true });
    await card.getByRole('button', { name: 'Reject Metal hat' }).click();
    await page.waitForURL(/\?rejected=/);
    await expect.poll(() => page.getByRole('status').textContent()).toBe(`Sound ${id} is rejected.`);
    await expect.poll(() => page.getByText('No sound is waiting for a moderator.').count()).toBe(1);
    await context.close();
  });
});
