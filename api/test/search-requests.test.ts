import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';

/**
 * Black-box tests of how the search resources read their parameters: from a POST body as from the
 * query string, and descriptor names in filters checked against the descriptors the catalogue has.
 */

type Json = Record<string, any>;

let s: TestServer;

beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.stop();
});

function url(path: string, query = ''): string {
  return `${s.origin}${path}?token=${s.seeded.apiKey}${query ? `&${query}` : ''}`;
}

async function post(
  path: string,
  body: RequestInit['body'],
  headers: Record<string, string> = {},
  query = '',
) {
  return fetch(url(path, query), { method: 'POST', body, headers });
}

async function ok(res: Response): Promise<Json> {
  const body = (await res.json()) as Json;
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body;
}

async function refused(res: Response, detail: RegExp): Promise<void> {
  const body = (await res.json()) as Json;
  expect(res.status, JSON.stringify(body)).toBe(400);
  expect(String(body.detail)).toMatch(detail);
}

const usernames = (page: Json) => new Set(page.results.map((r: Json) => r.username));

describe('POST searches read their parameters from the body', () => {
  let everyone: number;
  beforeAll(async () => {
    everyone = (await ok(await fetch(url('/apiv2/search/', 'fields=id')))).count;
  });

  it('takes a url-encoded form', async () => {
    const page = await ok(
      await post('/apiv2/search/', new URLSearchParams({ filter: 'username:bob', fields: 'id,username' })),
    );
    expect(page.count).toBeGreaterThan(0);
    expect(page.count).toBeLessThan(everyone);
    expect(usernames(page)).toEqual(new Set(['bob']));
  });

  it('takes multipart form data without files', async () => {
    const form = new FormData();
    form.set('filter', 'username:alice');
    form.set('fields', 'id,username');
    const page = await ok(await post('/apiv2/search/text/', form));
    expect(page.count).toBeLessThan(everyone);
    expect(usernames(page)).toEqual(new Set(['alice']));
  });

  it('takes a JSON object, numbers as their text', async () => {
    const page = await ok(
      await post(
        '/apiv2/search/',
        JSON.stringify({ filter: 'username:bob', fields: 'id,username', page_size: 1 }),
        { 'Content-Type': 'application/json' },
      ),
    );
    expect(page.results).toHaveLength(1);
    expect(usernames(page)).toEqual(new Set(['bob']));
    // The next link carries the parameters, so following it with GET gives page 2 of the same search.
    expect(page.next).toContain('filter=username:bob');
  });

  it('merges body and query string; the body wins for a name given in both', async () => {
    const page = await ok(
      await post(
        '/apiv2/search/',
        new URLSearchParams({ filter: 'username:bob' }),
        {},
        'filter=username:alice&fields=id,username',
      ),
    );
    expect(usernames(page)).toEqual(new Set(['bob']));
  });

  it('applies a body to content and combined search', async () => {
    const all = await ok(
      await post(
        '/apiv2/search/content/',
        new URLSearchParams({ descriptors_filter: 'lowlevel.spectral_centroid.mean:[0 TO 1000000]' }),
      ),
    );
    const low = await ok(
      await post(
        '/apiv2/search/content/',
        new URLSearchParams({ descriptors_filter: 'lowlevel.spectral_centroid.mean:[* TO 1000]' }),
      ),
    );
    expect(low.count).toBeGreaterThan(0);
    expect(low.count).toBeLessThan(all.count);
    const combined = await ok(
      await post(
        '/apiv2/search/combined/',
        JSON.stringify({
          query: 'kick',
          descriptors_filter: 'lowlevel.spectral_centroid.mean:[0 TO 100000]',
          fields: 'id,name',
        }),
        { 'Content-Type': 'application/json' },
      ),
    );
    expect(combined.results.length).toBe(3);
    for (const r of combined.results) expect(r.name).toMatch(/kick/i);
  });

  it('takes a POST without a body as a GET', async () => {
    const page = await ok(await fetch(url('/apiv2/search/', 'fields=id'), { method: 'POST' }));
    expect(page.count).toBe(everyone);
  });

  it('answers 400 with a detail to a malformed body', async () => {
    const json = { 'Content-Type': 'application/json' };
    await refused(await post('/apiv2/search/', '{"filter": ', json), /JSON/);
    await refused(await post('/apiv2/search/', '["tag:kick"]', json), /JSON object/);
    await refused(await post('/apiv2/search/', '{"filter": {"tag": "kick"}}', json), /'filter'/);
    const withFile = new FormData();
    withFile.set('filter', 'tag:kick');
    withFile.set('analysis_file', new Blob(['{}']), 'a.json');
    await refused(await post('/apiv2/search/content/', withFile), /file/);
    // A body parameter is validated like a query parameter.
    await refused(await post('/apiv2/search/', new URLSearchParams({ filter: 'nosuchfield:3' })), /filter/);
  });
});

describe('descriptor names in filters', () => {
  it('refuses a variable-length descriptor with 400 naming it', async () => {
    for (const [path, query] of [
      ['/apiv2/search/content/', 'descriptors_filter=rhythm.onset_times:[0 TO 1]'],
      ['/apiv2/search/content/', 'descriptors_filter=rhythm.beats_position:[0 TO 1]'],
      ['/apiv2/search/content/', 'descriptors_filter=onset_times:[0 TO 1]'],
      ['/apiv2/search/combined/', 'query=kick&descriptors_filter=rhythm.onset_times:[0 TO 1]'],
      ['/apiv2/search/', 'filter=rhythm.onset_times:[0 TO 1]'],
    ]) {
      const name = /=(?:[^&]*&descriptors_filter=)?([a-z_.]+):/.exec(query)?.[1] as string;
      await refused(await fetch(url(path, query)), new RegExp(`"${name.replace(/\./g, '\\.')}"`));
    }
  });

  it('refuses an unknown descriptor with 400 naming it', async () => {
    for (const [path, query, name] of [
      ['/apiv2/search/content/', 'descriptors_filter=lowlevel.foo.mean:[1 TO 2]', 'lowlevel.foo.mean'],
      ['/apiv2/search/content/', 'descriptors_filter=lowlevel.mfcc.mean[3]:[1 TO 2] foo:1', 'foo'],
      ['/apiv2/search/combined/', 'query=kick&descriptors_filter=tonal.nothing:[1 TO 2]', 'tonal.nothing'],
      ['/apiv2/search/', 'filter=lowlevel.foo.mean:[1 TO 2]', 'lowlevel.foo.mean'],
    ]) {
      await refused(await fetch(url(path, query)), new RegExp(`"${name.replace(/\./g, '\\.')}"`));
    }
  });

  it('still accepts the descriptors the catalogue holds, dotted or consolidated', async () => {
    const page = await ok(
      await fetch(
        url(
          '/apiv2/search/content/',
          'descriptors_filter=lowlevel.mfcc.mean[0]:[* TO 100000] AND spectral_centroid:[0 TO 100000]',
        ),
      ),
    );
    expect(page.count).toBeGreaterThan(0);
  });
});
