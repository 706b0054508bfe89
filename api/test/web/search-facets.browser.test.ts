import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chromiumAvailable,
  launchChromium,
  saveScreenshot,
  startTestServer,
  type TestServer,
} from '../support/index.ts';

type Json = Record<string, any>;

/**
 * The search page's facets (issue 36) in a browser: the counts are the API's `facets` over every
 * match, each a link that adds its value as a filter, after which the page shows exactly that many
 * sounds.
 */
describe.skipIf(!chromiumAvailable())('search page facets in a browser', () => {
  let s: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    [s, browser] = await Promise.all([startTestServer(), launchChromium()]);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await s?.stop();
  });

  const countShown = async (page: import('playwright-core').Page) =>
    Number(((await page.getByRole('status').textContent()) ?? '').match(/^(\d+)/)?.[1]);

  it('lists tags, licenses, types and uploaders with the counts a filter by each gives', async () => {
    const api = (await (
      await fetch(`${s.origin}/apiv2/search/text/?query=drum&facets=tags,license,username&facet_limit=15`, {
        headers: { Authorization: `Token ${s.seeded.apiKey}` },
      })
    ).json()) as Json;
    const page = await browser.newPage();
    await page.goto(`${s.origin}/search/?q=drum`);
    const tags = page.getByRole('group', { name: 'Tags in these results' });
    const [tag, tagCount] = api.facets.tags[0] as [string, number];
    const tagLink = tags.getByRole('link', { name: `${tag} (${tagCount})` });
    await expect(tagLink.isVisible()).resolves.toBe(true);
    const licenses = page.getByRole('group', { name: 'Licenses' });
    for (const [license, n] of api.facets.license as [string, number][])
      await expect(licenses.getByRole('link', { name: `${license} (${n})` }).isVisible()).resolves.toBe(true);
    await saveScreenshot(page, 'search-facets', { fullPage: true });

    // Following a facet link filters by it: the page then counts what the facet said.
    await tagLink.click();
    await page.waitForURL(/tag=/);
    expect(await countShown(page)).toBe(tagCount);
    // The chosen tag is no longer offered; an uploader narrows further.
    await expect(tags.getByRole('link', { name: `${tag} (${tagCount})` }).count()).resolves.toBe(0);
    const uploaders = page.getByRole('group', { name: 'Uploaders' });
    const first = uploaders.getByRole('link').first();
    const expected = Number(((await first.textContent()) ?? '').match(/\((\d+)\)/)?.[1]);
    await first.click();
    await page.waitForURL(/username=/);
    expect(await countShown(page)).toBe(expected);
    await expect(page.getByRole('link', { name: /^Remove uploader/ }).isVisible()).resolves.toBe(true);
    await page.close();
  });
});
