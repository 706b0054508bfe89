import fs from 'node:fs';
import { createRequire } from 'node:module';
import vm from 'node:vm';
import FreeSoundModule from 'freesound-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerToken, startTestServer, type TestServer } from './support/index.ts';

/**
 * The Freesound client libraries on npm, unchanged, making their bookmark and rate calls with an
 * OAuth2 Bearer token. freesound-client loses a POST's parameters in Node (it turns its form into a
 * garbled query string): the server must still authenticate the Bearer token, bookmark with the
 * defaults, and answer the rating it did not get with the per-field 400, never a 401 or a 500.
 */

const FreeSound = ((FreeSoundModule as unknown as { default?: unknown }).default ??
  FreeSoundModule) as unknown as new () => Json;

type Json = Record<string, any>;

let s: TestServer;
let token: string;
beforeAll(async () => {
  s = await startTestServer({ OAUTH2_HTTPS_ONLY: 'false' });
  token = await bearerToken(s, 'bob');
}, 120_000);
afterAll(() => s?.stop());

async function uncategorized(): Promise<number[]> {
  const res = await fetch(`${s.origin}/apiv2/me/bookmark_categories/0/sounds/?fields=id`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  if (res.status === 404) return [];
  return ((await res.json()) as Json).results.map((r: Json) => r.id);
}

describe('freesound-client (npm) with a Bearer token', () => {
  it('bookmarks and rates a sound', async () => {
    const client = new FreeSound();
    client.uris.base = `${s.origin}/apiv2`;
    expect(client.setToken(token, 'oauth')).toBe(`Bearer ${token}`);
    const id = s.seeded.ids.tabla_ke1;
    const sound = (await client.getSound(id)) as Json;
    // Its OAuth2 check insists on a browser `window`; everything else runs on node-fetch.
    const g = globalThis as { window?: unknown };
    g.window = {};
    try {
      expect(await sound.bookmark('tabla', 'Percussion')).toEqual({
        detail: `Successfully bookmarked sound ${id}.`,
      });
      expect(await sound.rate(4)).toEqual({ detail: { rating: ['This field is required.'] } });
    } finally {
      delete g.window;
    }
    expect(await uncategorized()).toContain(id);
  });
});

describe('freesound (freesound.js on npm) with a Bearer token', () => {
  /**
   * Its Node path cannot reach a sound's methods (it hands the wrappers the response text), so it is
   * loaded unchanged as a browser loads it: in a context whose XMLHttpRequest sends the request with
   * fetch, to the test server instead of freesound.org.
   */
  function loadInBrowserMode(): Json {
    const origin = s.origin;
    class XMLHttpRequest {
      readyState = 0;
      status = 0;
      statusText = '';
      responseText = '';
      onreadystatechange: () => void = () => {};
      private method = 'GET';
      private url = '';
      private readonly headers: Record<string, string> = {};
      open(method: string, url: string) {
        this.method = method;
        this.url = url.replace('https://freesound.org', origin);
      }
      setRequestHeader(name: string, value: string) {
        this.headers[name] = value;
      }
      send(body?: FormData) {
        void fetch(this.url, { method: this.method, headers: this.headers, body }).then(async (res) => {
          this.status = res.status;
          this.statusText = res.statusText;
          this.responseText = await res.text();
          this.readyState = 4;
          this.onreadystatechange();
        });
      }
    }
    const require = createRequire(import.meta.url);
    const context = vm.createContext({ XMLHttpRequest, FormData });
    vm.runInContext(fs.readFileSync(require.resolve('freesound/freesound.js'), 'utf8'), context);
    return context.freesound as Json;
  }

  function call(fn: (ok: (data: unknown) => void, fail: (err: unknown) => void) => void): Promise<Json> {
    return new Promise((resolve, reject) => {
      fn(
        (data) => resolve(data as Json),
        (err) => reject(new Error(String(err))),
      );
    });
  }

  it('bookmarks and rates a sound', async () => {
    const freesound = loadInBrowserMode();
    freesound.setToken(token, 'oauth');
    const id = s.seeded.ids.bd_klub;
    const sound = await call((ok, fail) => freesound.getSound(id, ok, fail));
    expect(sound.name).toBe('Club kick');
    const bookmarked = await call((ok, fail) => sound.bookmark('club', 'Kicks', ok, fail));
    expect(bookmarked.detail).toBe(`Successfully bookmarked sound ${id}.`);
    const rated = await call((ok, fail) => sound.rate(5, ok, fail));
    expect(rated.detail).toBe(`Successfully rated sound ${id}.`);
    await expect(call((ok, fail) => sound.rate(5, ok, fail))).rejects.toThrow('Conflict');
    const res = await fetch(
      `${s.origin}/apiv2/sounds/${id}/?fields=avg_rating,num_ratings&token=${s.seeded.apiKey}`,
    );
    expect(await res.json()).toEqual({ avg_rating: 5, num_ratings: 1 });
    const kicks = await fetch(`${s.origin}/apiv2/me/bookmark_categories/`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(((await kicks.json()) as Json).results).toContainEqual(
      expect.objectContaining({ name: 'Kicks', num_sounds: 1 }),
    );
  });
});
