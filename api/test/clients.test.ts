import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import vm from 'node:vm';
import FreeSoundModule from 'freesound-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';

/**
 * The Freesound client libraries published on npm, unchanged, driving the server for their read
 * calls. Only their base address is pointed at the test server.
 */

// The package is CommonJS with `exports.default`; depending on the loader the class is either.
const FreeSound = ((FreeSoundModule as unknown as { default?: unknown }).default ??
  FreeSoundModule) as unknown as new () => Json;

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s?.stop());

type Json = Record<string, any>;

describe('freesound-client (npm)', () => {
  function client() {
    const fs = new FreeSound();
    fs.uris.base = `${s.origin}/apiv2`;
    fs.setToken(s.seeded.apiKey);
    return fs;
  }

  it('reads a sound, its analysis, similar sounds and comments', async () => {
    const fs = client();
    const sound = (await fs.getSound(s.seeded.ids.bd_808)) as unknown as Json;
    expect(sound.name).toBe('Kick 808');
    const analysis = (await sound.getAnalysis()) as Json;
    expect(analysis.freesound_classic).toHaveLength(100);
    const similar = (await sound.getSimilar({ fields: 'id,name' })) as Json;
    expect(similar.count).toBeGreaterThan(0);
    expect(similar.results.map((r: Json) => r.id)).not.toContain(s.seeded.ids.bd_808);
    const comments = (await sound.getComments()) as Json;
    expect(comments.count).toBe(3);
  });

  it('searches and follows next/previous pages', async () => {
    const fs = client();
    const first = (await fs.textSearch('', { page_size: 3, fields: 'id,name' })) as Json;
    expect(first.results).toHaveLength(3);
    const second = (await first.nextPage()) as Json;
    expect(second.results).toHaveLength(3);
    expect(second.results[0].id).not.toBe(first.results[0].id);
    // Pages returned by nextPage lose their `this` inside the client (its bug), so follow the
    // previous link with the client's own request method, which appends `?` to it as well.
    const back = (await fs.makeRequest(second.previous)) as Json;
    expect(back.results).toEqual(first.results);
    const kicks = (await fs.textSearch('kick', { fields: 'id' })) as Json;
    expect(kicks.count).toBe(3);
  });

  it('runs content and combined searches', async () => {
    const fs = client();
    const content = (await fs.contentSearch({
      target: 'lowlevel.spectral_centroid.mean:500',
      fields: 'id',
    })) as Json;
    expect(content.count).toBe(7);
    const combined = (await fs.combinedSearch({
      target: 'lowlevel.spectral_centroid.mean:500',
      filter: 'tag:kick',
      fields: 'id',
    })) as Json;
    expect(combined.results).toHaveLength(3);
    expect(combined).toHaveProperty('more', null);
  });

  it('reads users, their sounds and packs, and packs with their sounds', async () => {
    const fs = client();
    const user = (await fs.getUser('alice')) as Json;
    expect(user.username).toBe('alice');
    const sounds = (await user.sounds({ fields: 'id' })) as Json;
    expect(sounds.count).toBe(4);
    const packs = (await user.packs()) as Json;
    // alice's pack "Empty" holds no public sound, so it is not listed (issue 31).
    expect(packs.count).toBe(1);
    const pack = (await packs.getPack(0).sounds()) as Json;
    expect(pack.count).toBe(3);
    const direct = (await fs.getPack(s.seeded.packId)) as Json;
    expect(direct.name).toBe('Drums');
  });
});

describe('freesound (freesound.js on npm)', () => {
  /**
   * freesound.js talks to freesound.org:80 through node's http module; load it unchanged with an
   * http whose requests go to the test server instead.
   */
  function loadFreesoundJs(): Json {
    const require = createRequire(import.meta.url);
    const file = require.resolve('freesound/freesound.js');
    const target = new URL(s.origin);
    const redirectedHttp = {
      ...http,
      request: (options: http.RequestOptions, callback: (res: http.IncomingMessage) => void) =>
        http.request({ ...options, host: target.hostname, port: target.port }, callback),
    };
    const localRequire = (name: string) => (name === 'http' ? redirectedHttp : require(name));
    const module = { exports: {} as Json };
    const wrapped = vm.runInThisContext(
      `(function (module, exports, require) {${fs.readFileSync(file, 'utf8')}\n})`,
    );
    wrapped(module, module.exports, localRequire);
    return module.exports;
  }

  /** freesound.js hands node callers the response text; wait for it. */
  function callJs(fn: (ok: (data: unknown) => void, fail: (err: unknown) => void) => void): Promise<Json> {
    return new Promise((resolve, reject) => {
      fn(
        (data) => resolve(typeof data === 'string' ? JSON.parse(data) : (data as Json)),
        (err) => reject(new Error(String(err))),
      );
    });
  }

  it('reads a sound, a user, a pack and searches (its format=json and ?& quirks included)', async () => {
    const freesound = loadFreesoundJs();
    freesound.setToken(s.seeded.apiKey);
    const sound = await callJs((ok, fail) => freesound.getSound(s.seeded.ids.bd_808, ok, fail));
    expect(sound.name).toBe('Kick 808');
    const user = await callJs((ok, fail) => freesound.getUser('bob', ok, fail));
    expect(user.username).toBe('bob');
    const pack = await callJs((ok, fail) => freesound.getPack(s.seeded.packId, ok, fail));
    expect(pack.num_sounds).toBe(3);
    const found = await callJs((ok, fail) => freesound.textSearch('kick', { fields: 'id' }, ok, fail));
    expect(found.count).toBe(3);
    const content = await callJs((ok, fail) =>
      freesound.contentSearch(
        { target: 'lowlevel.spectral_centroid.mean:500', fields: 'id', page_size: 2 },
        ok,
        fail,
      ),
    );
    expect(content.results).toHaveLength(2);
  });

  it('is refused with a bad key, through its error callback', async () => {
    const freesound = loadFreesoundJs();
    freesound.setToken('not-a-key');
    await expect(callJs((ok, fail) => freesound.getSound(s.seeded.ids.bd_808, ok, fail))).rejects.toThrow(
      'Invalid token',
    );
  });
});
