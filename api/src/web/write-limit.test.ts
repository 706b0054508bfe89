import { recordingQueue } from '@earshot/services/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWebUser, startTestServer, type TestServer, WebClient } from '../../test/support/index.ts';

/**
 * The strict write limit (API.md "Limits": 30 a minute, 500 a day) applies to a signed-in user's
 * forms on the pages as it does to the API's write resources, under one count per user: the pages
 * are no way around it. Real server, embedded catalogue, real requests; the limiter's clock is the
 * test's, so the wait it announces is exact.
 */
describe('the write limit on the web forms', () => {
  const clock = { t: Date.UTC(2031, 0, 7, 12) + 5_000 };
  let server: TestServer;
  let kick: number;
  let back: string;

  beforeAll(async () => {
    server = await startTestServer(
      { OAUTH2_HTTPS_ONLY: 'false', UPLOAD_MAX_BYTES: String(16 * 1024 * 1024) },
      { rateLimits: { now: () => clock.t }, queue: recordingQueue().queue },
    );
    for (const name of ['carol', 'dave', 'erin', 'frank']) await addWebUser(server.catalogue.db, name);
    kick = server.seeded.ids.bd_808;
    back = `/people/alice/sounds/${kick}/`;
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** A browser signed in as `name`, holding its session's CSRF token, in a fresh minute of the limiter. */
  async function signedIn(name: string): Promise<WebClient> {
    clock.t += 60_000 * 60;
    clock.t -= (clock.t % 60_000) - 5_000;
    const browser = new WebClient(server.origin);
    expect((await browser.signIn(name)).status).toBe(303);
    expect((await browser.get('/apiv2/apply/')).status).toBe(200);
    return browser;
  }

  async function numComments(): Promise<number> {
    const res = await fetch(`${server.origin}/apiv2/sounds/${kick}/?token=${server.seeded.apiKey}`);
    return ((await res.json()) as { num_comments: number }).num_comments;
  }

  it('refuses the 31st of 41 comments sent through the form in a minute: a 429 page saying when to try again', async () => {
    const carol = await signedIn('carol');
    const before = await numComments();
    const statuses: number[] = [];
    let refused: Awaited<ReturnType<WebClient['post']>> | undefined;
    for (let i = 1; i <= 41; i++) {
      const res = await carol.post(`${back}comment/`, { comment: `comment ${i}` });
      statuses.push(res.status);
      if (res.status === 303) expect(res.headers.get('location')).toBe(`${back}?done=commented#actions`);
      refused ??= res.status === 429 ? res : undefined;
    }
    expect(statuses.filter((s) => s === 303)).toHaveLength(30);
    expect(statuses.slice(30)).toEqual(Array(11).fill(429));
    expect(refused?.headers.get('content-type')).toMatch(/^text\/html/);
    expect(refused?.headers.get('retry-after')).toBe('57');
    expect(refused?.body).toContain('Too many changes');
    expect(refused?.body).toContain('Try again in 57 seconds.');
    expect(await numComments()).toBe(before + 30);
    // One count for every form: a bookmark and a rating are refused as well.
    expect((await carol.post(`${back}bookmark/`, { category: 'Kicks' })).status).toBe(429);
    expect((await carol.post(`${back}rate/`, { rating: '3' })).status).toBe(429);
    // The window slides: a minute later writes pass again.
    clock.t += 60_000;
    expect((await carol.post(`${back}comment/`, { comment: 'later' })).status).toBe(303);
  });

  it('refuses the 31st of 40 bookmarks sent through the form in a minute', async () => {
    const dave = await signedIn('dave');
    const statuses: number[] = [];
    for (let i = 1; i <= 40; i++) {
      statuses.push((await dave.post(`${back}bookmark/`, { category: `c${i % 3}` })).status);
    }
    expect(statuses.slice(0, 30)).toEqual(Array(30).fill(303));
    expect(statuses.slice(30)).toEqual(Array(10).fill(429));
  });

  it('counts the forms and the API (the browseable API’s session) as one: 20 + 10, then both refuse', async () => {
    const erin = await signedIn('erin');
    for (let i = 0; i < 20; i++) {
      expect((await erin.post(`${back}comment/`, { comment: `form ${i}` })).status).toBe(303);
    }
    const apiComment = () =>
      erin.request('POST', `/apiv2/sounds/${kick}/comment/`, new URLSearchParams({ comment: 'api' }), {
        'X-CSRF-Token': erin.csrfToken,
        Accept: 'application/json',
      });
    for (let i = 0; i < 10; i++) expect((await apiComment()).status).toBe(200);
    const api = await apiComment();
    expect(api.status).toBe(429);
    expect(JSON.parse(api.body).detail).toBe(
      'Request was throttled because of exceeding a request limit rate (30/minute)',
    );
    expect((await erin.post(`${back}comment/`, { comment: 'one more' })).status).toBe(429);
  });

  it('counts the upload, credentials and other forms too, refusing an upload before its file is read; sign-out always passes', async () => {
    const frank = await signedIn('frank');
    const apply = { name: 'app', description: '', redirect_uri: 'https://example.org/cb' };
    expect((await frank.post('/apiv2/apply/', apply)).status).toBe(201);
    for (let i = 0; i < 29; i++) expect((await frank.post(`${back}bookmark/`, {})).status).toBe(303);
    expect((await frank.post('/apiv2/apply/', apply)).status).toBe(429);
    // A multipart upload of 8 MB: refused from its headers, the file is not needed.
    const form = new FormData();
    form.set('csrf_token', frank.csrfToken);
    form.set('audiofile', new Blob([new Uint8Array(8 * 1024 * 1024)]), 'big.wav');
    const cookie = [...frank.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const upload = await fetch(`${server.origin}/upload/`, {
      method: 'POST',
      body: form,
      headers: { Cookie: cookie },
      redirect: 'manual',
    });
    expect(upload.status).toBe(429);
    expect(upload.headers.get('retry-after')).toBe('57');
    expect(await upload.text()).toContain('Try again in 57 seconds.');
    const describe = await frank.post('/upload/describe/', { upload_filename: 'x.wav', name: 'x' });
    expect(describe.status).toBe(429);
    const out = await frank.post('/apiv2/logout/');
    expect([out.status, out.headers.get('location')]).toEqual([303, '/apiv2/login/?signed_out=1']);
  });
});
