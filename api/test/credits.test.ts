import { createTestDatabase } from '@earshot/catalogue/testing';
import { testService } from '@earshot/common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerToken } from './support/bearer.ts';
import { startTestServer, type TestServer } from './support/server.ts';

/**
 * Credits files for any selection (docs/api.md "Beyond the contract", issue 36): a list of ids, a
 * pack, a bookmark category; JSON at each path and plain text at `text/` below it. Every credit is
 * the one the `attribution` field and a pack's zip give, on both databases.
 */

const postgresUrl = await testService('postgres');
const backends = postgresUrl ? ['pglite', 'postgres'] : ['pglite'];

type Json = Record<string, any>;

describe.each(backends)('credits files on %s', (backend) => {
  let s: TestServer;
  let database: { url: string; drop(): Promise<void> } | undefined;

  beforeAll(async () => {
    database = backend === 'postgres' ? await createTestDatabase(postgresUrl as string) : undefined;
    s = await startTestServer({
      OAUTH2_HTTPS_ONLY: 'false',
      ...(database ? { DATABASE_URL: database.url } : {}),
    });
  }, 180_000);
  afterAll(async () => {
    await s?.stop();
    await database?.drop();
  });

  async function get(path: string, auth: string | null = `Token ${s.seeded.apiKey}`) {
    const res = await fetch(`${s.origin}${path}`, { headers: auth ? { Authorization: auth } : {} });
    const text = await res.text();
    const type = res.headers.get('content-type') ?? '';
    return {
      status: res.status,
      type,
      text,
      body: (type.includes('json') ? JSON.parse(text) : {}) as Json,
    };
  }

  const attribution = async (id: number) =>
    (await get(`/apiv2/sounds/${id}/?fields=attribution`)).body.attribution as string;

  it('credits a list of ids in the order asked, with the attribution field of each, and names the ids it cannot credit', async () => {
    const { hat_cab, elec_wood, hat_sci } = s.seeded.ids;
    const res = await get(`/apiv2/credits/?ids=${elec_wood},${hat_cab},${hat_sci},999999,${elec_wood}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.sounds.map((c: Json) => c.id)).toEqual([elec_wood, hat_cab]);
    expect(res.body.sounds[0]).toMatchObject({
      id: elec_wood,
      username: 'bob',
      url: `${s.origin}/people/bob/sounds/${elec_wood}/`,
      attribution: await attribution(elec_wood),
    });
    expect(res.body.sounds[1].license_url).toMatch(/^https:\/\/creativecommons\.org\//);
    // hat_sci is not public (the seed leaves it unprocessed); 999999 never existed.
    expect(res.body.missing).toEqual([hat_sci, 999999]);

    const text = await get(`/apiv2/credits/text/?ids=${elec_wood},${hat_cab},${hat_sci}`);
    expect(text.status).toBe(200);
    expect(text.type).toMatch(/^text\/plain/);
    const lines = text.text.split('\n');
    expect(lines).toContain(await attribution(elec_wood));
    expect(lines).toContain(await attribution(hat_cab));
    expect(text.text).toContain(`no credit given): ${hat_sci}`);
  });

  it("credits a pack's public sounds, as its zip does", async () => {
    const pack = await get(`/apiv2/packs/${s.seeded.packId}/sounds/?fields=id&page_size=150`);
    const ids = (pack.body.results as Json[]).map((r) => r.id).sort((a, b) => a - b);
    const res = await get(`/apiv2/packs/${s.seeded.packId}/credits/`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.title).toBe('Pack "Drums" by alice');
    expect((res.body.sounds as Json[]).map((c) => c.id).sort((a, b) => a - b)).toEqual(ids);
    for (const credit of res.body.sounds as Json[])
      expect(credit.attribution).toBe(await attribution(credit.id));
    const text = await get(`/apiv2/packs/${s.seeded.packId}/credits/text/`);
    expect(text.text.startsWith('Credits: Pack "Drums" by alice\n')).toBe(true);
    expect((await get('/apiv2/packs/999999/credits/')).status).toBe(404);
  });

  it("credits the caller's bookmark category, and only the caller's", async () => {
    const token = await bearerToken(s, 'bob');
    const { bd_808, elec_wood } = s.seeded.ids;
    for (const id of [bd_808, elec_wood]) {
      const res = await fetch(`${s.origin}/apiv2/sounds/${id}/bookmark/`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ category: 'Credits test' }),
      });
      expect(res.status).toBe(200);
    }
    const categories = await get('/apiv2/me/bookmark_categories/', `Bearer ${token}`);
    const category = (categories.body.results as Json[]).find((c) => c.name === 'Credits test') as Json;
    const res = await get(`/apiv2/me/bookmark_categories/${category.id}/credits/`, `Bearer ${token}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.title).toBe('Bookmarks of "Credits test"');
    expect((res.body.sounds as Json[]).map((c) => c.id).sort((a, b) => a - b)).toEqual(
      [bd_808, elec_wood].sort((a, b) => a - b),
    );
    const other = await bearerToken(s, 'alice');
    expect(
      (await get(`/apiv2/me/bookmark_categories/${category.id}/credits/`, `Bearer ${other}`)).status,
    ).toBe(404);
    // A bookmark category is a user's: an API key alone does not reach it.
    expect((await get(`/apiv2/me/bookmark_categories/${category.id}/credits/`)).status).toBe(401);
  });

  it('answers a bad selection with a 4xx that says what is wrong', async () => {
    const cases: Array<[string, number, RegExp]> = [
      ['/apiv2/credits/', 400, /ids: give one or more/],
      ['/apiv2/credits/?ids=1,x', 400, /"x" is not a sound id/],
      ['/apiv2/credits/?ids=0', 400, /"0" is not a sound id/],
      [`/apiv2/credits/?ids=${Array.from({ length: 501 }, (_, i) => i + 1).join(',')}`, 400, /at most 500/],
    ];
    for (const [path, status, detail] of cases) {
      const res = await get(path);
      expect(res.status, path).toBe(status);
      expect(res.body.detail, path).toMatch(detail);
    }
    expect((await get('/apiv2/credits/?ids=1', null)).status).toBe(401);
  });
});
