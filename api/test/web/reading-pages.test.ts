import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assetSizes, soundScriptUrl, stylesheetUrl } from '../../src/web/assets.ts';
import { startTestServer, type TestServer } from '../support/index.ts';

/** The HTML of a page, with its status and headers. */
async function page(server: TestServer, path: string) {
  const res = await fetch(`${server.origin}${path}`, { redirect: 'manual' });
  return { status: res.status, headers: res.headers, body: await res.text() };
}

/** Names of the sounds shown as cards, in order. */
function cardNames(html: string): string[] {
  return [...html.matchAll(/class="sound-name" href="[^"]*">([^<]*)</g)].map((m) => m[1]);
}

describe('reading pages: home, search, sound (real catalogue, real files)', () => {
  let server: TestServer;
  let url: (sample: string, user?: string) => string;

  beforeAll(async () => {
    server = await startTestServer();
    const users: Record<string, string> = {
      bd_808: 'alice',
      bd_fat: 'alice',
      elec_wood: 'bob',
      perc_snap: 'bob',
    };
    url = (sample, user = users[sample]) => `/people/${user}/sounds/${server.seeded.ids[sample]}/`;
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('home lists the newest public sounds first, with a search box, and no pending sound', async () => {
    const home = await page(server, '/');
    expect(home.status).toBe(200);
    expect(home.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(home.body).toContain('<form class="search-box" method="get" action="/search/"');
    const recent = cardNames(
      home.body.slice(home.body.indexOf('id="recent-h"'), home.body.indexOf('id="popular-h"')),
    );
    // Seeded minutes: Finger snap is the newest public sound; Metal hat is pending, never shown.
    expect(recent[0]).toBe('Finger snap');
    expect(recent).toContain('Kick 808');
    expect(home.body).not.toContain('Metal hat');
    // Visitors reading a page get no session (no cookie, no database write).
    expect(home.headers.get('set-cookie')).toBeNull();
  });

  it('search finds by words and narrows by tag, license and duration, without JavaScript', async () => {
    const kicks = await page(server, '/search/?q=kick');
    expect(kicks.status).toBe(200);
    expect(cardNames(kicks.body).sort()).toEqual(['Club kick', 'Fat kick', 'Kick 808']);
    // The tag facet offers the tags of these results as links that keep the query.
    expect(kicks.body).toContain('href="/search/?q=kick&amp;tag=808"');
    const cc0 = await page(server, '/search/?q=kick&license=Creative+Commons+0');
    expect(cardNames(cc0.body)).toEqual(['Kick 808']);
    expect(cc0.body).toMatch(/id="license-\d" name="license" value="Creative Commons 0" checked/);
    const tagged = await page(server, '/search/?tag=percussion&sort=created_desc');
    expect(cardNames(tagged.body)).toEqual(['Finger snap', 'Tabla ke']);
    const long = await page(server, '/search/?duration=longer');
    expect(cardNames(long.body)).toEqual([]);
    expect(long.body).toContain('No sound matches');
  });

  it('pages the results with links that keep the filters', async () => {
    const first = await page(server, '/search/?sort=created_asc&tag=drum');
    const count = cardNames(first.body).length;
    expect(count).toBeGreaterThan(0);
    expect(first.body).toContain(`${count} sounds`);
    const past = await page(server, '/search/?tag=drum&page=9');
    expect(past.status).toBe(404);
    expect(past.body).toContain('There is no such page of results');
  });

  it('malformed facets are ignored and odd words never make a 500', async () => {
    const ignored = await page(server, '/search/?bpm_min=fast&page=x&sort=nope&license=Stolen');
    expect(ignored.status).toBe(200);
    // Whatever the words, the page answers with the form: results, or a 4xx with the reason shown.
    for (const q of ['%22unclosed', 'tag%3A', '(((', 'a%20OR', 'x'.repeat(600)]) {
      const res = await page(server, `/search/?q=${q}`);
      expect(res.status, q).toBeLessThan(500);
      expect(res.body).toContain('<form class="search-page"');
      if (res.status !== 200) expect(res.body).toContain('role="alert"');
    }
    const odd = await page(server, `/search/?tag=${encodeURIComponent('a"b\\c')}&pack=%22`);
    expect(odd.status).toBe(200);
  });

  it('the sound page lives at the url the API gives, with player, waveform, spectrogram, words and similar sounds', async () => {
    const id = server.seeded.ids.bd_808;
    const api = await fetch(`${server.origin}/apiv2/sounds/${id}/?token=${server.seeded.apiKey}&fields=url`);
    const { url: apiUrl } = (await api.json()) as { url: string };
    expect(new URL(apiUrl).pathname).toBe(url('bd_808'));
    const sound = await page(server, url('bd_808'));
    expect(sound.status).toBe(200);
    const html = sound.body;
    expect(html).toContain('<h1 id="sound-h">Kick 808</h1>');
    expect(html).toContain(`<source src="/media/sounds/${id}/preview-hq.mp3" type="audio/mpeg">`);
    expect(html).toContain(`<source src="/media/sounds/${id}/preview-hq.ogg" type="audio/ogg">`);
    expect(html).toContain(`data-peaks="/media/sounds/${id}/peaks.json"`);
    expect(html).toContain('alt="Spectrogram of Kick 808');
    expect(html).toContain(`<script src="${soundScriptUrl}" defer></script>`);
    // The descriptors in words agree with the API's own values for this sound.
    const values = (await (
      await fetch(
        `${server.origin}/apiv2/sounds/${id}/?token=${server.seeded.apiKey}&fields=duration,loudness,pitch,bpm,tonality`,
      )
    ).json()) as {
      duration: number;
      loudness: number;
      pitch: number;
      bpm: number | null;
      tonality: string | null;
    };
    expect(html).toContain(`<dt>Loudness</dt><dd>${values.loudness.toFixed(1).replace('-', '−')} LUFS`);
    expect(html).toContain(`<dt>Pitch</dt><dd>${Math.round(values.pitch)} Hz`);
    expect(html).toContain(`<dt>Duration</dt><dd>${Math.round(values.duration * 1000)} ms</dd>`);
    expect(html.includes('<dt>Tempo</dt>')).toBe(Boolean(values.bpm));
    expect(html.includes('<dt>Key</dt>')).toBe(Boolean(values.tonality));
    expect(html).toContain('href="https://creativecommons.org/publicdomain/zero/1.0/"');
    // The actions part: a visitor is invited to sign in to download, rate, bookmark or comment.
    expect(html).toContain('id="actions"');
    expect(html).toMatch(/Sign in<\/a> to download this sound/);
    const similar = cardNames(html.slice(html.indexOf('id="similar-h"')));
    expect(similar.length).toBeGreaterThan(0);
    expect(similar).not.toContain('Kick 808');
    expect(similar).not.toContain('Metal hat');
  });

  it('serves the peaks file the waveform is drawn from (audiowaveform JSON)', async () => {
    const res = await fetch(`${server.origin}/media/sounds/${server.seeded.ids.bd_808}/peaks.json`);
    expect(res.status).toBe(200);
    const peaks = (await res.json()) as { version: number; data: number[]; length: number };
    expect(peaks.version).toBe(2);
    expect(peaks.data.length).toBe(peaks.length * 2);
    expect(Math.max(...peaks.data)).toBeGreaterThan(0);
  });

  it('a sound without similarity analysis says so; another user in the address redirects; unknown is a 404', async () => {
    const snap = await page(server, url('perc_snap'));
    expect(snap.status).toBe(200);
    expect(snap.body).toContain('not analyzed for similarity');
    const wrongUser = await page(server, url('bd_808', 'bob'));
    expect(wrongUser.status).toBe(301);
    expect(wrongUser.headers.get('location')).toBe(url('bd_808'));
    for (const path of [
      `/people/bob/sounds/${server.seeded.ids.hat_sci}/`, // pending
      '/people/alice/sounds/999999/',
      '/people/alice/sounds/abc/',
      '/people/alice/sounds/99999999999999999999/',
    ]) {
      const res = await page(server, path);
      expect(res.status, path).toBe(404);
      expect(res.body).toContain('<h1');
    }
  });

  it('a sound page weighs under 100 KB of HTML, CSS and JS before audio and images', async () => {
    const sound = await page(server, url('elec_wood'));
    const css = await fetch(`${server.origin}${stylesheetUrl}`);
    const js = await fetch(`${server.origin}${soundScriptUrl}`);
    expect(css.headers.get('cache-control')).toContain('immutable');
    expect(js.headers.get('content-type')).toContain('javascript');
    const bytes =
      Buffer.byteLength(sound.body) +
      (await css.arrayBuffer()).byteLength +
      (await js.arrayBuffer()).byteLength;
    // The page loads exactly these two assets (the upload scripts belong to other pages).
    const loaded = [...sound.body.matchAll(/(?:href|src)="(\/web-assets\/[^"?]+)/g)].map((m) => m[1]);
    expect(new Set(loaded)).toEqual(new Set([stylesheetUrl, soundScriptUrl].map((u) => u.split('?')[0])));
    expect(bytes).toBe(Buffer.byteLength(sound.body) + assetSizes[loaded[0]] + assetSizes[loaded[1]]);
    expect(bytes).toBeLessThan(100 * 1024);
  });
});
