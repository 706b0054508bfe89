import { bookmarkSound, deleteSound } from '@earshot/catalogue';
import { insertSeedPack, insertSeedSound, insertSeedUser } from '@earshot/catalogue/testing';
import { sql } from 'kysely';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chromiumAvailable,
  launchChromium,
  saveScreenshot,
  startTestServer,
  type TestServer,
} from '../support/index.ts';

/**
 * The web pages that list sounds page by cursor (issue 36; api/src/web/pages/walk-paging.ts): a
 * person who opens a search, a user's page, a pack or a bookmark category and follows "Next"
 * while sounds are added, removed and reordered sees every sound that was there all along exactly
 * once; "Previous" goes back to what was shown; a walk no longer kept says so and offers the first
 * page. Clicked in Debian's chromium like a person would.
 */
describe.skipIf(!chromiumAvailable())('paging through sounds in a browser', () => {
  let server: TestServer;
  let browser: Browser;
  let strollerId: number;
  let n = 0;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer(), launchChromium()]);
    strollerId = await insertSeedUser(server.catalogue.db, {
      username: 'stroller',
      password_hash: null,
      avatar_path: null,
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const db = () => server.catalogue.db;

  /** The stored previews and images of the seeded recordings, which the added sounds show. */
  let media: Record<string, string>[] = [];

  async function addSound(word: string, i: number, packId: number | null = null): Promise<number> {
    n++;
    if (media.length === 0) {
      const rows = await db()
        .selectFrom('sounds')
        .select('media_paths')
        .where('id', 'in', Object.values(server.seeded.ids))
        .execute();
      media = rows.map((r) => r.media_paths);
    }
    const id = await insertSeedSound(db(), {
      user_id: strollerId,
      pack_id: packId,
      name: `${word} walk ${n}`,
      description: `${word} by the river`,
      tags: [word, 'stroll'],
      license: 'Creative Commons 0',
      category: null,
      subcategory: null,
      category_code: null,
      geotag_lat: null,
      geotag_lon: null,
      original_filename: `${word}-${n}.wav`,
      original_path: '',
      duration: 1 + (i % 9),
      num_downloads: (i * 7) % 23,
      avg_rating: 3,
      num_ratings: 1,
      created: new Date(Date.UTC(2026, 1, 1) + n * 60_000),
      moderation_state: 'ok',
      processing_state: 'Processed',
    });
    await db()
      .updateTable('sounds')
      .set({ media_paths: media[n % media.length] })
      .where('id', '=', id)
      .execute();
    return id;
  }

  const setDownloads = (id: number, num_downloads: number) =>
    db().updateTable('sounds').set({ num_downloads }).where('id', '=', id).execute();

  /** The ids of the sounds a page lists, in order (search cards or the plain sound lists). */
  const shownIds = async (page: Page) =>
    (
      await page
        .locator('a.sound-name, ol.sound-list a')
        .evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''))
    ).map((href) => Number(/\/sounds\/(\d+)\/$/.exec(href)?.[1]));

  /**
   * Follows "Next" from the page open now until there is none, and between pages adds a sound,
   * removes one not shown yet (deleted or sent back to moderation, in turn), brings one not shown
   * yet to the front of a downloads order and sends one already shown to the back. Returns the
   * ids shown, in order, and the ones removed.
   */
  async function pageWhileWriting(
    page: Page,
    next: string,
    word: string,
    pool: number[],
    packId: number | null,
  ) {
    const shown: number[] = [];
    const removed = new Set<number>();
    for (let turn = 0; ; turn++) {
      shown.push(...(await shownIds(page)));
      const unread = pool.filter((id) => !shown.includes(id) && !removed.has(id));
      await addSound(word, turn, packId);
      if (unread.length > 2) {
        const gone = unread[unread.length - 1];
        removed.add(gone);
        if (turn % 2) await deleteSound(db(), gone);
        else
          await db()
            .updateTable('sounds')
            .set({ moderation_state: 'pending_moderation' })
            .where('id', '=', gone)
            .execute();
        await setDownloads(unread[unread.length - 2], 1000);
      }
      await setDownloads(shown[0], 0);
      const link = page.getByRole('link', { name: next });
      if ((await link.count()) === 0) break;
      await Promise.all([page.waitForURL(/cursor=/), link.click()]);
    }
    return { shown, removed };
  }

  const expectEachOnce = (shown: number[], pool: number[], removed: Set<number>) => {
    expect(new Set(shown).size, 'no sound twice').toBe(shown.length);
    expect([...shown].sort((a, b) => a - b)).toEqual(
      pool.filter((id) => !removed.has(id)).sort((a, b) => a - b),
    );
    expect(removed.size).toBeGreaterThan(0);
  };

  it('pages through a search by "Next" while sounds come, go and change places, each sound once', async () => {
    const pool: number[] = [];
    for (let i = 0; i < 50; i++) pool.push(await addSound('meadow', i));
    const page = await (await browser.newContext({ viewport: { width: 1100, height: 1000 } })).newPage();
    await page.goto(`${server.origin}/search/?q=meadow&sort=downloads_desc`);
    await expect.poll(() => page.getByRole('status').textContent()).toBe('50 sounds · page 1 of 4');
    await expect(page.getByRole('link', { name: '← Previous' }).count()).resolves.toBe(0);
    const first = await shownIds(page);
    expect(first).toHaveLength(15);

    // "Next" carries the walk's cursor and keeps the query; "Previous" comes back to what was shown.
    const next = new URL(
      (await page.getByRole('link', { name: 'Next →' }).getAttribute('href')) ?? '',
      server.origin,
    );
    expect(Object.fromEntries(next.searchParams)).toMatchObject({ q: 'meadow', sort: 'downloads_desc' });
    expect(next.searchParams.get('cursor')).toMatch(/^[\w-]+$/);
    await page.getByRole('link', { name: 'Next →' }).click();
    await page.waitForURL(/cursor=/);
    await expect.poll(() => page.getByRole('status').textContent()).toBe('50 sounds · page 2 of 4');
    await saveScreenshot(page, 'search-pages', { fullPage: true });
    await page.getByRole('link', { name: '← Previous' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('50 sounds · page 1 of 4');
    expect(await shownIds(page)).toEqual(first);

    const { shown, removed } = await pageWhileWriting(page, 'Next →', 'meadow', pool, null);
    expectEachOnce(shown, pool, removed);
    await page.close();
  });

  it("pages through a user's page, a pack and a bookmark category the same way", async () => {
    const packId = await insertSeedPack(db(), {
      user_id: strollerId,
      name: 'Footpaths',
      created: new Date(),
    });
    const pool: number[] = [];
    for (let i = 0; i < 70; i++) pool.push(await addSound('footpath', i, packId));
    const page = await browser.newPage();

    await page.goto(`${server.origin}/people/stroller/packs/${packId}/`);
    const pack = await pageWhileWriting(page, 'Next page', 'footpath', pool, packId);
    expectEachOnce(pack.shown, pool, pack.removed);

    // Every sound of the user as it is now, then a walk of them while writing.
    const everyone: number[] = [];
    await page.goto(`${server.origin}/people/stroller/`);
    for (;;) {
      everyone.push(...(await shownIds(page)));
      const link = page.getByRole('link', { name: 'Next page' });
      if ((await link.count()) === 0) break;
      await Promise.all([page.waitForURL(/cursor=/), link.click()]);
    }
    expect(everyone.length).toBeGreaterThan(60);
    await page.goto(`${server.origin}/people/stroller/`);
    const user = await pageWhileWriting(page, 'Next page', 'lane', everyone, null);
    expectEachOnce(user.shown, everyone, user.removed);

    const kept = pool.filter((id) => !pack.removed.has(id)).slice(0, 40);
    for (const id of kept) await bookmarkSound(db(), { userId: strollerId, soundId: id, name: `mark ${id}` });
    await page.goto(`${server.origin}/people/stroller/bookmarks/`);
    expect(await page.locator('p.meta').first().textContent()).toContain('40 sounds');
    const marks = await pageWhileWriting(page, 'Next page', 'bridleway', kept, null);
    expectEachOnce(marks.shown, kept, marks.removed);
    await page.close();
  });

  it('says when a walk is no longer kept and offers the first page again', async () => {
    for (let i = 0; i < 40; i++) await addSound('heath', i);
    const page = await browser.newPage();
    await page.goto(`${server.origin}/search/?q=heath`);
    await sql`update list_walks set expires_at = now() - interval '1 second'`.execute(db());
    await page.getByRole('link', { name: 'Next →' }).click();
    await page.waitForURL(/cursor=/);
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toContain('These pages are no longer kept');
    await saveScreenshot(page, 'search-pages-expired');
    await page.getByRole('link', { name: 'Start again from the first page' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('40 sounds · page 1 of 3');

    await page.goto(`${server.origin}/people/stroller/`);
    await sql`update list_walks set expires_at = now() - interval '1 second'`.execute(db());
    await page.getByRole('link', { name: 'Next page' }).click();
    await expect
      .poll(() => page.getByRole('heading', { level: 1 }).textContent())
      .toBe('These pages are no longer kept');
    await page.getByRole('link', { name: 'Start again from the first page' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('stroller');
    await page.close();
  });
});
