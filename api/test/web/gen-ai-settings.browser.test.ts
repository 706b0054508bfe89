import { setUserPassword } from '@earshot/catalogue';
import { sql } from 'kysely';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chromiumAvailable,
  launchChromium,
  saveScreenshot,
  startTestServer,
  type TestServer,
  WEB_PASSWORD,
} from '../support/index.ts';

type Json = Record<string, any>;

/**
 * The generative-AI settings on the account page (issue 35): a seeded uploader, alice, chooses a
 * preference and opts her solo speech out in a browser; her sounds then carry it in the API, her
 * solo-speech sound as `no-gen-ai`, and the filter finds them by it. Bob's sounds keep the default.
 */
describe.skipIf(!chromiumAvailable())('generative AI settings in a browser', () => {
  let s: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    [s, browser] = await Promise.all([startTestServer(), launchChromium()]);
    await setUserPassword(s.catalogue.db, s.seeded.userIds.alice, WEB_PASSWORD);
    await sql`update sounds set category_code = 'sp-s' where id = ${s.seeded.ids.bd_808}`.execute(
      s.catalogue.db,
    );
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await s?.stop();
  });

  async function api(path: string, params: Record<string, string> = {}): Promise<Json> {
    const u = new URL(`${s.origin}${path}`);
    for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
    u.searchParams.set('token', s.seeded.apiKey);
    const res = await fetch(u);
    expect(res.status).toBe(200);
    return (await res.json()) as Json;
  }
  const preferenceOf = async (sample: string) =>
    (await api(`/apiv2/sounds/${s.seeded.ids[sample]}/`)).gen_ai_preference as string;

  it('saves the preference and the speech opt-out; the API shows and filters by them', async () => {
    expect(await preferenceOf('bd_808')).toBe('no-additional-preferences');
    // Not among a list's default fields, as upstream.
    const list = await api('/apiv2/search/', { query: 'kick' });
    expect(list.results[0]).not.toHaveProperty('gen_ai_preference');

    const context = await browser.newContext({ viewport: { width: 900, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${s.origin}/apiv2/login/?next=/apiv2/account/`);
    await page.getByLabel('Username or email').fill('alice');
    await page.getByLabel('Password').fill(WEB_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${s.origin}/apiv2/account/`);
    expect(await page.getByLabel('No preference beyond the licence').isChecked()).toBe(true);
    expect(await page.getByLabel('No generative AI for my solo speech recordings').isChecked()).toBe(false);

    await page.getByLabel('Open-source models only', { exact: true }).check();
    await page.getByLabel('No generative AI for my solo speech recordings').check();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(`${s.origin}/apiv2/account/?saved=1`);
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Your settings are saved.');
    expect(await page.getByLabel('Open-source models only', { exact: true }).isChecked()).toBe(true);
    expect(await page.getByLabel('No generative AI for my solo speech recordings').isChecked()).toBe(true);
    await saveScreenshot(page, 'account-gen-ai', { fullPage: true });

    expect(await preferenceOf('bd_808')).toBe('no-gen-ai');
    expect(await preferenceOf('bd_fat')).toBe('open-source-models');
    expect(await preferenceOf('elec_wood')).toBe('no-additional-preferences');
    const found = await api('/apiv2/search/', {
      filter: 'gen_ai_preference:"open-source-models"',
      fields: 'id,username,gen_ai_preference',
      page_size: '50',
    });
    expect(found.count).toBeGreaterThan(0);
    for (const r of found.results as Json[]) {
      expect(r).toMatchObject({ username: 'alice', gen_ai_preference: 'open-source-models' });
      expect(r.id).not.toBe(s.seeded.ids.bd_808);
    }

    // A value that is not one of the four is refused with the form shown again.
    await page.locator('#gen-ai-no-gen-ai').evaluate((el) => el.setAttribute('value', 'maybe'));
    await page.getByLabel('No generative AI', { exact: true }).check();
    const response = page.waitForResponse((r) => r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Save' }).click();
    expect((await response).status()).toBe(400);
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toMatch(/Unknown generative AI preference "maybe"/);
    expect(await preferenceOf('bd_fat')).toBe('open-source-models');
    await context.close();
  });
});
