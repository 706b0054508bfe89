import { fixture } from '@earshot/fixtures';
import { createUser } from '@earshot/services';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addWebUser,
  chromiumAvailable,
  launchChromium,
  type ServeProcess,
  saveScreenshot,
  startServeProcess,
  WEB_PASSWORD,
} from '../support/index.ts';

// A person uploads a sound in a browser through the whole service (`earshot serve` with its
// in-process pipeline and real ffmpeg): upload with progress → describe → the processing stages
// advance on their own (pending.js) → a moderator approves → the sound is on the user's page and in
// its pack.

describe.skipIf(!chromiumAvailable())('upload pages in a browser', () => {
  let s: ServeProcess;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [s, browser] = await Promise.all([startServeProcess(), launchChromium()]);
    await addWebUser(s.catalogue.db, 'carol');
    await createUser(s.catalogue.db, {
      username: 'mona',
      email: 'mona@example.org',
      password: WEB_PASSWORD,
      isModerator: true,
    });
  }, 120_000);
  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await s?.stop();
  });

  async function signedIn(username: string, next: string): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 900, height: 800 } });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${s.origin}${next}`); // a visitor is sent to sign in, and back
    await page.getByLabel('Username or email').fill(username);
    await page.getByLabel('Password').fill(WEB_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${s.origin}${next}`);
    return page;
  }

  it('upload → describe → stages advance → moderate → public on the user and pack pages', async () => {
    const page = await signedIn('carol', '/upload/');
    const errors: string[] = [];
    page.on('console', (m) => {
      // A script or request the CSP refuses shows here (the refused description's 400 does not count).
      if (m.type() === 'error' && !m.text().includes('status of 400')) errors.push(m.text());
    });
    await saveScreenshot(page, 'upload');
    await page.getByLabel('Audio file').setInputFiles(fixture('fmt-wav-16'));
    // upload.js sends the form with XHR: the progress element appears and reaches 100.
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.waitForURL(/\/upload\/describe\/\?file=fmt-wav-16\.wav$/);
    expect(await page.locator('h1').textContent()).toBe('Describe fmt-wav-16.wav');

    // A description the service refuses comes back with the message beside the field.
    await page.getByLabel('Tags').fill('two tags');
    await page.getByRole('button', { name: 'Describe and process' }).click();
    await expect.poll(() => page.locator('#tags-error').textContent()).toMatch(/3/);
    await page.goto(`${s.origin}/upload/describe/?file=fmt-wav-16.wav`); // a fresh form for the picture
    await page.getByLabel('Name').fill('Browser tone');
    await page.getByLabel('Category').selectOption('fx-other');
    await page.getByLabel('Tags').fill('tone test browser');
    await page.getByLabel('Description').fill('A test tone uploaded in a browser.');
    await page.getByLabel('Creative Commons 0').check();
    await page.getByLabel('Pack (optional)').fill('Browser kit');
    await saveScreenshot(page, 'describe', { fullPage: true });
    await page.getByRole('button', { name: 'Describe and process' }).click();
    await page.waitForURL(/\/upload\/pending\/\?described=\d+$/);
    const id = Number(new URL(page.url()).searchParams.get('described'));
    const stages = new Set<string>();
    const stage = page.locator(`[data-sound-id="${id}"] .stage`);
    // The stage element goes away when the sound moves on: read it without waiting for it.
    if (await stage.count()) {
      stages.add((await stage.textContent({ timeout: 1_000 }).catch(() => null)) ?? '');
      await saveScreenshot(page, 'upload-stages');
    }
    // Nobody reloads: pending.js follows the record and shows the sound under moderation.
    const deadline = Date.now() + 120_000;
    while (!(await page.getByRole('heading', { name: 'Waiting for a moderator' }).count())) {
      expect(Date.now(), `stages seen: ${[...stages].join(' | ')}\n${s.output()}`).toBeLessThan(deadline);
      if (await stage.count())
        stages.add((await stage.textContent({ timeout: 1_000 }).catch(() => null)) ?? '');
      await page.waitForTimeout(200);
    }
    expect([...stages].some((t) => /Queued|Processing/.test(t))).toBe(true);
    expect(await page.locator(`[data-sound-id="${id}"]`).textContent()).toContain('Browser tone');
    expect(errors).toEqual([]);

    const mona = await signedIn('mona', '/apiv2/moderation/');
    await mona.getByRole('button', { name: 'Approve Browser tone' }).click();
    await expect.poll(() => mona.getByRole('status').textContent()).toContain(`Sound ${id} is approved`);

    // The pending page's script reloads it once the approval shows: read the user page in a page of
    // its own, so that reload cannot interrupt the navigation.
    const pending = page;
    const viewer = await pending.context().newPage();
    await pending.close();
    await viewer.goto(`${s.origin}/people/carol/`);
    const link = viewer.getByRole('link', { name: 'Browser tone' });
    expect(await link.getAttribute('href')).toBe(`/people/carol/sounds/${id}/`);
    await saveScreenshot(viewer, 'user');
    await viewer.getByRole('link', { name: 'Browser kit' }).click();
    await viewer.waitForURL(/\/people\/carol\/packs\/\d+\/$/);
    expect(await viewer.getByRole('link', { name: 'Browser tone' }).count()).toBe(1);
    await saveScreenshot(viewer, 'pack');
  }, 240_000);
});
