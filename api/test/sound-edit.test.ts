import SwaggerParser from '@apidevtools/swagger-parser';
import { recordingQueue } from '@earshot/services/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerGrant, startTestServer, type TestServer } from './support/index.ts';

// Black-box tests of POST /apiv2/sounds/<id>/edit/ (API.md "Edit parameters") on the seeded
// catalogue: alice owns the drum sounds, bob owns hat_sci (still pending moderation).

type Json = Record<string, any>;
let s: TestServer;
let alice: string;
let bob: string;

beforeAll(async () => {
  s = await startTestServer({ OAUTH2_HTTPS_ONLY: 'false' }, { queue: recordingQueue().queue });
  alice = (await bearerGrant(s.catalogue.db, s.origin, 'alice')).accessToken;
  bob = (await bearerGrant(s.catalogue.db, s.origin, 'bob')).accessToken;
}, 120_000);
afterAll(() => s?.stop());

async function edit(id: number, params: Record<string, string>, token = alice) {
  const res = await fetch(`${s.origin}/apiv2/sounds/${id}/edit/`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}` },
    body: new URLSearchParams(params),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

async function get(url: string, token = alice): Promise<Json> {
  const res = await fetch(`${s.origin}${url}`, { headers: { Authorization: `Bearer ${token}` } });
  expect(res.status, url).toBe(200);
  return (await res.json()) as Json;
}

const FIELDS = 'fields=id,name,tags,description,license,pack_name,geotag,category,subcategory,category_code';

describe('POST /apiv2/sounds/<id>/edit/', () => {
  it('changes only the given fields; tags replace the tags; search and similarity see it at once', async () => {
    const id = s.seeded.ids.bd_fat;
    const before = await get(`/apiv2/sounds/${id}/?${FIELDS}`);
    expect(before.tags).toEqual(['kick', 'drum', 'fat']);
    // Read once so that every cache holds the old answer.
    await get('/apiv2/search/?filter=tag:dawnkick&fields=id');
    await get(`/apiv2/sounds/${s.seeded.ids.bd_808}/similar/?fields=id,name,tags&page_size=150`);

    const res = await edit(id, { name: 'Dawn kick', tags: 'dawnkick low Punchy' });
    expect(res).toEqual({ status: 200, body: { detail: `Description of sound ${id} successfully edited.` } });
    const after = await get(`/apiv2/sounds/${id}/?${FIELDS}`);
    expect(after).toEqual({ ...before, name: 'Dawn kick', tags: ['dawnkick', 'low', 'punchy'] });

    const found = await get('/apiv2/search/?filter=tag:dawnkick&fields=id');
    expect(found.results).toEqual([{ id }]);
    const gone = await get('/apiv2/search/?filter=tag:fat%20id:' + id + '&fields=id');
    expect(gone.results).toEqual([]);
    const similar = await get(
      `/apiv2/sounds/${s.seeded.ids.bd_808}/similar/?fields=id,name,tags&page_size=150`,
    );
    expect(similar.results).toContainEqual({ id, name: 'Dawn kick', tags: ['dawnkick', 'low', 'punchy'] });

    // The same edit again (a retry) changes nothing more.
    expect((await edit(id, { name: 'Dawn kick', tags: 'dawnkick low Punchy' })).status).toBe(200);
    expect(await get(`/apiv2/sounds/${id}/?${FIELDS}`)).toEqual(after);
  });

  it('edits license, description, category, pack (created when missing) and geotag', async () => {
    const id = s.seeded.ids.hat_cab;
    const res = await edit(id, {
      description: 'Bright and short.',
      license: 'creative commons 0',
      bst_category: 'is-p',
      pack: 'Hats',
      geotag: '-33.5,151.25,16',
    });
    expect(res.status).toBe(200);
    const after = await get(`/apiv2/sounds/${id}/?${FIELDS}`);
    expect(after).toMatchObject({
      description: 'Bright and short.',
      license: 'Creative Commons 0',
      category: 'Instrument samples',
      subcategory: 'Percussion',
      category_code: 'is-p',
      pack_name: 'Hats',
      geotag: '-33.5 151.25',
    });
    const geo = await get('/apiv2/search/?filter=is_geotagged:true&fields=id');
    expect(geo.results.map((r: Json) => r.id)).toContain(id);
  });

  it('bad fields are a 400 mapping each to its problem, and nothing changes', async () => {
    const id = s.seeded.ids.bd_808;
    const before = await get(`/apiv2/sounds/${id}/?${FIELDS}`);
    const res = await edit(id, { name: 'New', tags: 'one', license: 'GPL', geotag: '1,2' });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.detail).sort()).toEqual(['geotag', 'license', 'tags']);
    expect(res.body.detail.tags).toEqual(['You should add at least 3 tags...']);
    expect(await get(`/apiv2/sounds/${id}/?${FIELDS}`)).toEqual(before);
  });

  it("only the uploader may edit: another user's sound is a 403, an unseen one a 404", async () => {
    const res = await edit(s.seeded.ids.bd_808, { name: 'Mine now' }, bob);
    expect(res.status).toBe(403);
    expect(res.body.detail).toBe(
      "Not authorized. The sound you're trying to edit is not owned by the OAuth2 logged in user.",
    );
    expect((await get(`/apiv2/sounds/${s.seeded.ids.bd_808}/?fields=name`)).name).toBe('Kick 808');
    // bob's sound pending moderation: alice cannot see it, so it does not exist for her.
    expect((await edit(s.seeded.ids.hat_sci, { name: 'x' })).status).toBe(404);
    expect((await edit(999_999, { name: 'x' })).status).toBe(404);
  });

  it('an API key is refused', async () => {
    const res = await fetch(`${s.origin}/apiv2/sounds/${s.seeded.ids.bd_808}/edit/`, {
      method: 'POST',
      headers: { Authorization: `Token ${s.seeded.apiKey}` },
      body: new URLSearchParams({ name: 'x' }),
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as Json).detail).toBe('Authentication credentials were not provided.');
  });
});

describe('OpenAPI document with the write routes', () => {
  it('validates and describes upload, describe, pending uploads and edit', async () => {
    const doc = (await (await fetch(`${s.origin}/apiv2/openapi.json`)).json()) as Json;
    await SwaggerParser.validate(structuredClone(doc) as never);
    expect(doc.paths['/apiv2/sounds/upload/']?.post).toBeDefined();
    expect(doc.paths['/apiv2/sounds/describe/']?.post).toBeDefined();
    expect(doc.paths['/apiv2/sounds/pending_uploads/']?.get).toBeDefined();
    expect(doc.paths['/apiv2/sounds/{sound_id}/edit/']?.post).toBeDefined();
  });
});
