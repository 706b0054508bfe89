import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerToken, startTestServer, type TestServer } from './support/index.ts';

// Black-box tests of the write resources rate/, comment/, bookmark/ and the user's bookmark
// categories (API.md "Sound resources", "Other resources"; DECISIONS.md; UPSTREAM-FACTS.md for
// the wording the contract leaves open).

let s: TestServer;
let bob: string; // bearer token of bob
let alice: string;

beforeAll(async () => {
  s = await startTestServer({ OAUTH2_HTTPS_ONLY: 'false' });
  [bob, alice] = await Promise.all([bearerToken(s, 'bob'), bearerToken(s, 'alice')]);
}, 120_000);
afterAll(() => s?.stop());

type Json = Record<string, any>;

function post(path: string, token: string | undefined, params: Record<string, string> = {}) {
  return fetch(`${s.origin}${path}`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
    body: new URLSearchParams(params),
  });
}

async function get(path: string, token?: string): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${s.origin}${path}`, {
    headers: token ? { Authorization: `Bearer ${token}` } : {},
  });
  return { status: res.status, body: (await res.json()) as Json };
}

const sound = (name: string) => s.seeded.ids[name];
const withKey = (path: string) => `${path}${path.includes('?') ? '&' : '?'}token=${s.seeded.apiKey}`;

async function expectFieldErrors(res: Response, field: string, message: string | RegExp) {
  expect(res.status).toBe(400);
  const body = (await res.json()) as Json;
  expect(Object.keys(body.detail)).toEqual([field]);
  expect(body.detail[field]).toEqual([expect.stringMatching(message)]);
}

describe('POST /apiv2/sounds/<id>/rate/', () => {
  it('rates once; avg_rating and num_ratings change in the sound, in search filters and sorts at once', async () => {
    const id = sound('tabla_ke1');
    // Read first, so that the caches hold the old record and the old search pages.
    const before = await get(withKey(`/apiv2/sounds/${id}/?fields=avg_rating,num_ratings`));
    expect(before.body).toEqual({ avg_rating: 0, num_ratings: 0 });
    const filter = withKey('/apiv2/search/?filter=avg_rating:[3 TO 5]&fields=id');
    expect((await get(filter)).body.count).toBe(0);
    const sorted = withKey('/apiv2/search/?sort=rating_desc&fields=id,avg_rating');
    expect((await get(sorted)).body.results[0].avg_rating).toBe(0);

    const res = await post(`/apiv2/sounds/${id}/rate/`, bob, { rating: '4' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ detail: `Successfully rated sound ${id}.` });
    expect((await get(withKey(`/apiv2/sounds/${id}/?fields=avg_rating,num_ratings`))).body).toEqual({
      avg_rating: 4,
      num_ratings: 1,
    });
    expect((await get(filter)).body.results).toEqual([{ id }]);
    expect((await get(withKey('/apiv2/search/?filter=num_ratings:1&fields=id'))).body.results).toEqual([
      { id },
    ]);
    expect((await get(sorted)).body.results[0]).toEqual({ id, avg_rating: 4 });

    const again = await post(`/apiv2/sounds/${id}/rate/`, bob, { rating: '1' });
    expect(again.status).toBe(409);
    expect(((await again.json()) as Json).detail).toMatch(/already rated sound/);
    // Another user's rating is averaged in.
    expect((await post(`/apiv2/sounds/${id}/rate/`, alice, { rating: '1' })).status).toBe(200);
    expect((await get(withKey(`/apiv2/sounds/${id}/?fields=avg_rating,num_ratings`))).body).toEqual({
      avg_rating: 2.5,
      num_ratings: 2,
    });
  });

  it('refuses a missing, non-integer or out-of-range rating with a per-field 400', async () => {
    const path = `/apiv2/sounds/${sound('bd_klub')}/rate/`;
    await expectFieldErrors(await post(path, bob), 'rating', 'This field is required.');
    await expectFieldErrors(
      await post(path, bob, { rating: 'five' }),
      'rating',
      'A valid integer is required.',
    );
    await expectFieldErrors(
      await post(path, bob, { rating: '4.5' }),
      'rating',
      'A valid integer is required.',
    );
    for (const rating of ['6', '-1']) {
      await expectFieldErrors(await post(path, bob, { rating }), 'rating', /between 0 and 5/);
    }
    // None of them counted: a good rating is still the first.
    expect((await post(path, bob, { rating: '0' })).status).toBe(200);
    expect(
      (await get(withKey(`/apiv2/sounds/${sound('bd_klub')}/?fields=num_ratings`))).body.num_ratings,
    ).toBe(1);
  });

  it('takes JSON and multipart bodies as well as forms', async () => {
    const id = sound('elec_twip');
    const json = await fetch(`${s.origin}/apiv2/sounds/${id}/rate/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${bob}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ rating: 5 }),
    });
    expect(json.status).toBe(200);
    const form = new FormData();
    form.set('rating', '3');
    const multipart = await fetch(`${s.origin}/apiv2/sounds/${id}/rate/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${alice}` },
      body: form,
    });
    expect(multipart.status).toBe(200);
    expect((await get(withKey(`/apiv2/sounds/${id}/?fields=avg_rating`))).body.avg_rating).toBe(4);
  });
});

describe('POST /apiv2/sounds/<id>/comment/', () => {
  it('stores plain text, lists it newest first and counts it; markup comes back as text, escaped in XML and HTML', async () => {
    const id = sound('elec_wood');
    expect((await get(withKey(`/apiv2/sounds/${id}/?fields=num_comments`))).body.num_comments).toBe(0);
    const text = '<script>alert("x")</script> & <b>bold</b>';
    for (const comment of ['first!', `  ${text}  `]) {
      const res = await post(`/apiv2/sounds/${id}/comment/`, alice, { comment });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ detail: `Successfully commented sound ${id}.` });
    }
    const list = await get(withKey(`/apiv2/sounds/${id}/comments/`));
    expect(list.body.count).toBe(2);
    expect(list.body.results.map((c: Json) => [c.username, c.comment])).toEqual([
      ['alice', text],
      ['alice', 'first!'],
    ]);
    expect((await get(withKey(`/apiv2/sounds/${id}/?fields=num_comments`))).body.num_comments).toBe(2);
    expect((await get(withKey(`/apiv2/search/?filter=comment:bold&fields=id`))).body.results).toEqual([
      { id },
    ]);

    const xml = await (
      await fetch(`${s.origin}${withKey(`/apiv2/sounds/${id}/comments/?format=xml`)}`)
    ).text();
    expect(xml).toContain('&lt;script&gt;');
    expect(xml).not.toContain('<script>');
    const html = await (
      await fetch(`${s.origin}${withKey(`/apiv2/sounds/${id}/comments/`)}`, {
        headers: { Accept: 'text/html' },
      })
    ).text();
    expect(html).toContain('alert');
    expect(html).not.toContain('<script>alert');
  });

  it('refuses a missing, blank or too long comment with a per-field 400', async () => {
    const path = `/apiv2/sounds/${sound('elec_wood')}/comment/`;
    await expectFieldErrors(await post(path, bob), 'comment', 'This field is required.');
    await expectFieldErrors(
      await post(path, bob, { comment: '   ' }),
      'comment',
      'This field may not be blank.',
    );
    await expectFieldErrors(
      await post(path, bob, { comment: 'x'.repeat(4001) }),
      'comment',
      /no more than 4000/,
    );
    expect((await post(path, bob, { comment: 'é'.repeat(4000) })).status).toBe(200);
  });
});

describe('POST /apiv2/sounds/<id>/bookmark/ and /apiv2/me/bookmark_categories/', () => {
  it('bookmarks uncategorized and into categories (created when unknown); a repeat does not duplicate', async () => {
    const token = await bearerToken(s, 'alice');
    const empty = await get('/apiv2/me/bookmark_categories/', token);
    expect(empty.body).toMatchObject({ count: 0, results: [] });

    const kick = sound('bd_808');
    const hat = sound('hat_cab');
    for (let i = 0; i < 2; i++) {
      const res = await post(`/apiv2/sounds/${kick}/bookmark/`, token, { name: 'my kick' });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ detail: `Successfully bookmarked sound ${kick}.` });
    }
    for (let i = 0; i < 2; i++) {
      expect((await post(`/apiv2/sounds/${hat}/bookmark/`, token, { category: 'Hats' })).status).toBe(200);
    }
    const categories = await get('/apiv2/me/bookmark_categories/', token);
    expect(categories.status).toBe(200);
    expect(categories.body.count).toBe(2);
    const [loose, hats] = categories.body.results;
    expect(loose).toEqual({
      id: 0,
      url: `${s.origin}/apiv2/me/bookmark_categories/0/sounds/`,
      name: 'Uncategorized',
      num_sounds: 1,
      sounds: `${s.origin}/apiv2/me/bookmark_categories/0/sounds/`,
    });
    expect(hats).toMatchObject({ name: 'Hats', num_sounds: 1 });
    expect(hats.id).toBeGreaterThan(0);

    const zero = await get('/apiv2/me/bookmark_categories/0/sounds/?fields=id,name', token);
    expect(zero.body).toMatchObject({ count: 1, results: [{ id: kick, name: 'Kick 808' }] });
    const inHats = await get(`/apiv2/me/bookmark_categories/${hats.id}/sounds/?fields=id`, token);
    expect(inHats.body).toMatchObject({ count: 1, results: [{ id: hat }] });

    // Bookmarking the kick into Hats moves it: still one bookmark.
    expect((await post(`/apiv2/sounds/${kick}/bookmark/`, token, { category: 'Hats' })).status).toBe(200);
    const moved = await get('/apiv2/me/bookmark_categories/', token);
    expect(moved.body.results).toEqual([expect.objectContaining({ name: 'Hats', num_sounds: 2 })]);
  });

  it('keeps categories to their user: another user’s or an unknown category is a 404', async () => {
    const token = await bearerToken(s, 'bob');
    expect(
      (await post(`/apiv2/sounds/${sound('bd_fat')}/bookmark/`, token, { category: 'Bob only' })).status,
    ).toBe(200);
    const bobs = (await get('/apiv2/me/bookmark_categories/', token)).body.results as Json[];
    const id = bobs.find((c) => c.name === 'Bob only')?.id;
    expect(typeof id).toBe('number');
    const other = await bearerToken(s, 'alice');
    expect((await get(`/apiv2/me/bookmark_categories/${id}/sounds/`, other)).status).toBe(404);
    expect((await get('/apiv2/me/bookmark_categories/999999/sounds/', token)).status).toBe(404);
    expect((await get('/apiv2/me/bookmark_categories/abc/sounds/', token)).status).toBe(404);
  });

  it('refuses too long names with a 400 mapping each bad field', async () => {
    const res = await post(`/apiv2/sounds/${sound('bd_fat')}/bookmark/`, bob, {
      name: 'n'.repeat(129),
      category: 'c'.repeat(129),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as Json;
    expect(Object.keys(body.detail).sort()).toEqual(['category', 'name']);
    expect(body.detail.name[0]).toMatch(/no more than 128/);
  });
});

describe('rules shared by the write resources', () => {
  const writes = [
    ['rate', { rating: '3' }],
    ['comment', { comment: 'hi' }],
    ['bookmark', {}],
  ] as const;

  it.each(writes)(
    '%s/: an unknown, pending or unanalyzed-but-hidden sound is a 404',
    async (what, params) => {
      for (const id of [999_999, sound('hat_sci')]) {
        const res = await post(`/apiv2/sounds/${id}/${what}/`, bob, params);
        expect(res.status).toBe(404);
        expect(typeof ((await res.json()) as Json).detail).toBe('string');
      }
    },
  );

  it.each(writes)(
    '%s/: OAuth2 only — an API key or no credential is a 401 with a detail',
    async (what, params) => {
      const path = `/apiv2/sounds/${sound('bd_fat')}/${what}/`;
      const withApiKey = await fetch(`${s.origin}${path}`, {
        method: 'POST',
        headers: {
          Authorization: `Token ${s.seeded.apiKey}`,
          'Content-Type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams(params),
      });
      expect(withApiKey.status).toBe(401);
      expect(await withApiKey.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
      const inQuery = await post(withKey(path), undefined, params);
      expect(inQuery.status).toBe(401);
      const none = await post(path, undefined, params);
      expect(none.status).toBe(401);
      expect(typeof ((await none.json()) as Json).detail).toBe('string');
    },
  );

  it.each(writes)('%s/: a token granted only the read scope is refused', async (what, params) => {
    const readOnly = await bearerToken(s, 'bob', { scope: 'read' });
    expect((await get('/apiv2/me/', readOnly)).status).toBe(200);
    const res = await post(`/apiv2/sounds/${sound('bd_fat')}/${what}/`, readOnly, params);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ detail: 'Not authorized' });
  });

  it('GET on a write resource is a 405; the me resources refuse an API key', async () => {
    const res = await fetch(`${s.origin}${withKey(`/apiv2/sounds/${sound('bd_fat')}/rate/`)}`);
    expect(res.status).toBe(405);
    expect((await get(withKey('/apiv2/me/bookmark_categories/'))).status).toBe(401);
    expect((await get(withKey('/apiv2/me/bookmark_categories/0/sounds/'))).status).toBe(401);
  });

  it('counts writes against the strict limit (30 a minute): the 31st is a 429 naming it', async () => {
    const token = await bearerToken(s, 'alice', { level: 'standard' });
    const path = `/apiv2/sounds/${sound('bd_fat')}/bookmark/`;
    for (let i = 0; i < 30; i++) expect((await post(path, token, { category: 'many' })).status).toBe(200);
    const throttled = await post(path, token, { category: 'many' });
    expect(throttled.status).toBe(429);
    expect(((await throttled.json()) as Json).detail).toMatch(/30\/minute/);
    // Reads are counted apart, against the standard limit: still served.
    expect((await get('/apiv2/me/bookmark_categories/', token)).status).toBe(200);
  });
});

describe('OpenAPI document', () => {
  it('documents the write resources, the bookmark categories and the downloads', async () => {
    const doc = (await (await fetch(`${s.origin}/apiv2/openapi.json`)).json()) as Json;
    for (const what of ['rate', 'comment', 'bookmark']) {
      expect(doc.paths[`/apiv2/sounds/{sound_id}/${what}/`]?.post, what).toBeDefined();
    }
    expect(doc.paths['/apiv2/sounds/{sound_id}/rate/'].post.responses['409']).toBeDefined();
    for (const path of [
      '/apiv2/me/bookmark_categories/',
      '/apiv2/me/bookmark_categories/{bookmark_category_id}/sounds/',
      '/apiv2/sounds/{sound_id}/download/',
      '/apiv2/packs/{pack_id}/download/',
    ]) {
      expect(doc.paths[path]?.get, path).toBeDefined();
    }
  });
});
