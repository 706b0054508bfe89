import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServices } from '../../src/application/index.ts';
import { soundActions } from '../../src/web/pages/sound-actions.ts';
import { render } from '../../src/web/render.ts';
import { webPageChain } from '../../src/web/routes.ts';
import { addWebUser, startTestServer, type TestServer, WebClient } from '../support/index.ts';

// The user, pack and sound-action pages (black box over HTTP, real embedded catalogue). The real
// sound page belongs to another part of the web layer: here a stand-in page at the same address,
// on its own port over the same catalogue, renders the sound-actions partial.

describe('user, pack and sound-action pages', () => {
  let server: TestServer;
  let standIn: { origin: string; close: () => void };
  let kick: number;

  beforeAll(async () => {
    server = await startTestServer();
    await addWebUser(server.catalogue.db, 'carol');
    kick = server.seeded.ids.bd_808;
    const deps = server.deps;
    const services = createServices(deps.api!, 'B');
    const router = new Router();
    router.get('/people/:username/sounds/:id/', ...webPageChain(deps.web!), async (ctx) => {
      const actions = await soundActions(ctx, services, {
        id: Number(ctx.params.id),
        username: ctx.params.username,
      });
      await render(ctx, 'sound-actions-stand-in', { actions });
    });
    const app = new Koa();
    app.use(router.routes());
    const http = app.listen(0, '127.0.0.1');
    await new Promise((r) => http.once('listening', r));
    standIn = {
      origin: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
      close: () => http.close(),
    };
  });
  afterAll(async () => {
    standIn?.close();
    await server?.stop();
  });

  async function signedIn(): Promise<WebClient> {
    const browser = new WebClient(server.origin);
    expect((await browser.signIn('carol')).status).toBe(303);
    return browser;
  }

  /** The stand-in sound page, with the client's cookies (sessions live in the shared catalogue). */
  async function soundPage(client: WebClient, query = ''): Promise<string> {
    const other = new WebClient(standIn.origin);
    for (const [k, v] of client.cookies) other.cookies.set(k, v);
    const res = await other.get(`/people/alice/sounds/${kick}/${query}`);
    expect(res.status).toBe(200);
    client.csrfToken = other.csrfToken;
    return res.body;
  }

  it('serves the user page at the address the API’s url field names, listing the packs and sounds', async () => {
    const api = await fetch(`${server.origin}/apiv2/users/alice/?token=${server.seeded.apiKey}`);
    const url = new URL(((await api.json()) as { url: string }).url);
    expect(url.pathname).toBe('/people/alice/');
    const res = await new WebClient(server.origin).get(url.pathname);
    expect(res.status).toBe(200);
    expect(res.body).toContain('<h1>alice</h1>');
    expect(res.body).toContain('I record drums.');
    expect(res.body).toContain(`href="/people/alice/packs/${server.seeded.packId}/">Drums</a>`);
    expect(res.body).toContain(`href="/people/alice/sounds/${kick}/">Kick 808</a>`);
    expect(res.body).not.toContain('Metal hat'); // bob's, and pending
    expect((await new WebClient(server.origin).get('/people/nobody-here/')).status).toBe(404);
  });

  it('serves the pack page at the pack’s url, and a 404 under another user or an unknown id', async () => {
    const packId = server.seeded.packId;
    const api = await fetch(`${server.origin}/apiv2/packs/${packId}/?token=${server.seeded.apiKey}`);
    expect(new URL(((await api.json()) as { url: string }).url).pathname).toBe(
      `/people/alice/packs/${packId}/`,
    );
    const res = await new WebClient(server.origin).get(`/people/alice/packs/${packId}/`);
    expect(res.status).toBe(200);
    expect(res.body).toContain('<h1>Drums</h1>');
    expect(res.body).toContain(`href="/people/alice/sounds/${kick}/">Kick 808</a>`);
    expect(res.body).toContain('href="/people/alice/"');
    expect((await new WebClient(server.origin).get(`/people/bob/packs/${packId}/`)).status).toBe(404);
    expect((await new WebClient(server.origin).get('/people/alice/packs/999999/')).status).toBe(404);
    expect((await new WebClient(server.origin).get('/people/alice/packs/x/')).status).toBe(404);
  });

  it('shows a visitor the comments and a sign-in link, no forms and no download', async () => {
    const body = await soundPage(new WebClient(server.origin));
    expect(body).toContain('3 comments');
    expect(body).toContain('Great kick!');
    expect(body).toContain(
      `href="/apiv2/login/?next=${encodeURIComponent(`/people/alice/sounds/${kick}/`)}"`,
    );
    expect(body).not.toContain('/rate/"');
    expect(body).not.toContain('download/');
  });

  it('rates, bookmarks and comments through the forms (303 back with a notice), as the API would', async () => {
    const carol = await signedIn();
    let body = await soundPage(carol);
    expect(body).toContain(`action="/people/alice/sounds/${kick}/rate/"`);
    const back = `/people/alice/sounds/${kick}/`;

    let res = await carol.post(`${back}rate/`, { rating: '4' });
    expect([res.status, res.headers.get('location')]).toEqual([303, `${back}?done=rated#actions`]);
    body = await soundPage(carol, '?done=rated');
    expect(body).toContain('Your rating: <strong>4 stars</strong>');
    expect(body).toContain('your rating is saved');
    res = await carol.post(`${back}rate/`, { rating: '5' });
    expect(res.headers.get('location')).toBe(`${back}?failed=already-rated#actions`);
    res = await carol.post(`${back}rate/`, { rating: '9' });
    expect(res.headers.get('location')).toBe(`${back}?failed=rating#actions`);
    const sound = await fetch(`${server.origin}/apiv2/sounds/${kick}/?token=${server.seeded.apiKey}`);
    expect(((await sound.json()) as { num_ratings: number }).num_ratings).toBe(1);

    res = await carol.post(`${back}bookmark/`, { category: 'Kicks' });
    expect(res.headers.get('location')).toBe(`${back}?done=bookmarked#actions`);
    body = await soundPage(carol);
    expect(body).toContain('Bookmarked in <strong>Kicks</strong>');

    res = await carol.post(`${back}comment/`, { comment: '<script>alert(1)</script> nice' });
    expect(res.headers.get('location')).toBe(`${back}?done=commented#actions`);
    body = await soundPage(carol);
    expect(body).toContain('4 comments');
    expect(body).toContain('&lt;script&gt;alert(1)&lt;/script&gt; nice');
    expect(body).not.toContain('<script>alert(1)');
    res = await carol.post(`${back}comment/`, { comment: '   ' });
    expect(res.headers.get('location')).toBe(`${back}?failed=comment#actions`);
  });

  it('refuses a form without the CSRF token and sends a visitor to sign in', async () => {
    const carol = await signedIn();
    const res = await carol.post(`/people/alice/sounds/${kick}/comment/`, {
      comment: 'x',
      csrf_token: 'wrong',
    });
    expect(res.status).toBe(403);
    const visitor = new WebClient(server.origin);
    await visitor.get('/apiv2/login/'); // a visitor's session and its token
    const sent = await visitor.post(`/people/alice/sounds/${kick}/comment/`, { comment: 'x' });
    expect([sent.status, sent.headers.get('location')]).toEqual([
      302,
      `/apiv2/login/?next=${encodeURIComponent(`/people/alice/sounds/${kick}/comment/`)}`,
    ]);
  });

  it('downloads the original through the session, with ranges, counting a download once', async () => {
    const carol = await signedIn();
    const path = `/people/alice/sounds/${kick}/download/`;
    const res = await carol.get(path);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename=/);
    expect(res.headers.get('content-type')).toMatch(/^audio\//);
    const cookie = [...carol.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const part = await fetch(new URL(path, server.origin), {
      headers: { Cookie: cookie, Range: 'bytes=10-19' },
    });
    expect(part.status).toBe(206);
    expect((await part.arrayBuffer()).byteLength).toBe(10);
    const sound = await fetch(`${server.origin}/apiv2/sounds/${kick}/?token=${server.seeded.apiKey}`);
    expect(((await sound.json()) as { num_downloads: number }).num_downloads).toBe(1);
    expect((await new WebClient(server.origin).get(path)).status).toBe(302); // a visitor signs in first
    expect((await carol.get(`/people/bob/sounds/${server.seeded.ids.hat_sci}/download/`)).status).toBe(404);
  });
});
