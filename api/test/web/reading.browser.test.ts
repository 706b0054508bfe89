import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chromiumAvailable,
  launchChromium,
  saveScreenshot,
  startTestServer,
  type TestServer,
} from '../support/index.ts';

/** What the test reads of an <audio> element (the DOM types are not in this package's lib). */
interface Media {
  readyState: number;
  duration: number;
  currentTime: number;
  preload: string;
  play(): Promise<void>;
  pause(): void;
  load(): void;
}

describe.skipIf(!chromiumAvailable())('reading pages in a browser', () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer(), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('search → open a sound → play → seek on the waveform (click and keys) → open a similar sound', async () => {
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    const page = await context.newPage();
    const refused: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) refused.push(m.text());
    });
    // Every address the pages use answers (the browser's own favicon request aside).
    page.on('response', (r) => {
      if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) refused.push(`${r.status()} ${r.url()}`);
    });
    await page.goto(`${server.origin}/`);
    await expect.poll(() => page.getByRole('heading', { name: 'Recent sounds' }).count()).toBe(1);
    await saveScreenshot(page, 'home');

    // Search from the home page's box; narrow by a tag of the results (a plain link).
    await page.getByLabel('Search sounds').fill('kick');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForURL(/\/search\/\?q=kick/);
    await expect.poll(() => page.getByRole('status').textContent()).toBe('3 sounds');
    await page.getByRole('link', { name: /^drum/ }).first().click();
    await page.waitForURL(/tag=drum/);
    await saveScreenshot(page, 'search');

    // Open a sound.
    await page.getByRole('link', { name: 'Kick 808' }).click();
    await page.waitForURL(/\/people\/alice\/sounds\/\d+\/$/);
    const audio = page.locator('#player');
    // The script drew the waveform from the peaks file (a slider over the picture).
    const wave = page.getByRole('slider', { name: 'Position in Kick 808' });
    await wave.waitFor();
    // Play: the element loads the preview (metadata and data), and time moves.
    await audio.evaluate((el) => (el as unknown as Media).play().catch(() => undefined));
    await expect
      .poll(() =>
        audio.evaluate((el) => {
          const a = el as unknown as Media;
          return a.readyState >= 2 && a.duration > 0;
        }),
      )
      .toBe(true);
    await audio.evaluate((el) => (el as unknown as Media).pause());
    const duration = await audio.evaluate((el) => (el as unknown as Media).duration);

    // Click at three quarters of the waveform: the player moves there.
    const box = await wave.boundingBox();
    if (!box) throw new Error('the waveform has no box');
    await page.mouse.click(box.x + box.width * 0.75, box.y + box.height / 2);
    await expect
      .poll(() => audio.evaluate((el, d) => (el as unknown as Media).currentTime / d, duration))
      .toBeCloseTo(0.75, 1);
    // The keyboard seeks too: Home to the start, then one step right (a twentieth).
    await wave.focus();
    await page.keyboard.press('Home');
    await expect.poll(() => audio.evaluate((el) => (el as unknown as Media).currentTime)).toBe(0);
    await page.keyboard.press('ArrowRight');
    await expect
      .poll(() => audio.evaluate((el, d) => (el as unknown as Media).currentTime / d, duration))
      .toBeCloseTo(0.05, 2);
    expect(await wave.getAttribute('aria-valuetext')).toMatch(/^0:00\.\d of 0:00\.\d$/);
    // The spectrogram is loaded and described.
    await expect
      .poll(() =>
        page
          .getByAltText(/^Spectrogram of Kick 808/)
          .evaluate((el) => (el as unknown as { naturalWidth: number }).naturalWidth),
      )
      .toBeGreaterThan(0);
    await saveScreenshot(page, 'sound', { fullPage: true });

    // A similar sound's small player loads its own preview; then open that sound.
    const similar = page.locator('section[aria-labelledby="similar-h"] .sound-card').first();
    const name = (await similar.locator('.sound-name').textContent()) ?? '';
    const small = similar.locator('audio');
    await small.evaluate((el) => {
      const a = el as unknown as Media;
      a.preload = 'auto';
      a.load();
    });
    await expect.poll(() => small.evaluate((el) => (el as unknown as Media).duration > 0)).toBe(true);
    await similar.locator('.sound-name').click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(name);
    expect(name).not.toBe('Kick 808');
    // Nothing was refused by the page's CSP or failed in its script.
    expect(refused).toEqual([]);
    await context.close();
  });

  it('searches and reads without JavaScript', async () => {
    const context = await browser.newContext({
      javaScriptEnabled: false,
      viewport: { width: 1000, height: 800 },
    });
    const page = await context.newPage();
    await page.goto(`${server.origin}/search/`);
    await page.getByLabel('Search sounds').fill('kick');
    await page.getByLabel('Creative Commons 0').check();
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/license=Creative\+Commons\+0/);
    await expect.poll(() => page.locator('.sound-name').allTextContents()).toEqual(['Kick 808']);
    await page.getByRole('link', { name: 'Kick 808' }).click();
    // Without the script the waveform is the picture and the browser's player seeks.
    await expect.poll(() => page.getByAltText('Waveform of Kick 808').isVisible()).toBe(true);
    await context.close();
  });
});
