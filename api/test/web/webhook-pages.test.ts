import { findWebhook } from '@earshot/catalogue';
import { registerWebhook, WEB_CLIENT_ID } from '@earshot/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWebUser, startTestServer, type TestServer, WebClient } from '../support/index.ts';

/**
 * The account's webhook pages (black box): the session's webhooks are the account's, made under
 * its own set (WEB_CLIENT_ID) and shown beside those its credentials made; nobody else sees or
 * changes them; forms need their CSRF token; what a user typed is shown escaped.
 */
describe('webhook pages (black box)', () => {
  let server: TestServer;
  let carol: number;

  beforeAll(async () => {
    server = await startTestServer({ TRUST_PROXY: '1', WEBHOOK_ALLOW_PRIVATE: 'true' });
    carol = await addWebUser(server.catalogue.db, 'carol');
    await addWebUser(server.catalogue.db, 'dave');
  });
  afterAll(() => server?.stop());

  async function signedIn(username: string): Promise<WebClient> {
    const browser = new WebClient(server.origin, { 'X-Forwarded-Proto': 'https' });
    expect((await browser.signIn(username)).status).toBe(303);
    return browser;
  }

  it('adds a webhook under the account, shows its secret once, escaped, and lists a credential’s too', async () => {
    const visitor = await new WebClient(server.origin).get('/apiv2/account/webhooks/');
    expect(visitor.status).toBe(302);
    const browser = await signedIn('carol');
    await browser.get('/apiv2/account/webhooks/');
    const url = 'http://127.0.0.1:9/hook?<b>x</b>';
    const made = await browser.post('/apiv2/account/webhooks/', {
      url,
      event_commented: 'on',
      event_rated: 'on',
    });
    expect(made.status, made.body).toBe(201);
    expect(made.headers.get('cache-control')).toBe('no-store');
    expect(made.body).toContain('http://127.0.0.1:9/hook?&lt;b&gt;x&lt;/b&gt;');
    expect(made.body).not.toContain('<b>x</b>');
    const secret = /Signing secret: <code class="secret">(whsec_[A-Za-z0-9_-]+)<\/code>/.exec(made.body)?.[1];
    expect(secret).toBeDefined();
    const id = Number(/\/apiv2\/account\/webhooks\/(\d+)\/delete\//.exec(made.body)?.[1]);
    const stored = await findWebhook(server.catalogue.db, id, { userId: carol });
    expect(stored).toMatchObject({ clientId: WEB_CLIENT_ID, kinds: ['commented', 'rated'], secret });
    // Shown this once.
    expect((await browser.get('/apiv2/account/webhooks/')).body).not.toContain(secret as string);

    // One an application made with a credential is the account's too.
    await registerWebhook(
      server.catalogue.db,
      { userId: carol, clientId: 'an-app' },
      { url: 'http://127.0.0.1:9/app' },
      { allowPrivate: true },
    );
    const list = (await browser.get('/apiv2/account/webhooks/')).body;
    expect(list).toContain('http://127.0.0.1:9/app');
    expect(list).toContain('Made with a revoked credential');
    expect(list).toContain('Made with this website');
  });

  it('refuses a bad URL, no kinds and a missing CSRF token, saying why', async () => {
    const browser = await signedIn('carol');
    await browser.get('/apiv2/account/webhooks/');
    const bad = await browser.post('/apiv2/account/webhooks/', { url: 'ftp://x', event_rated: 'on' });
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('only http and https URLs');
    const none = await browser.post('/apiv2/account/webhooks/', { url: 'http://127.0.0.1:9/' });
    expect(none.status).toBe(400);
    expect(none.body).toContain('Choose at least one kind of event.');
    const forged = await new WebClient(server.origin).post('/apiv2/account/webhooks/', {
      url: 'http://127.0.0.1:9/',
      event_rated: 'on',
    });
    expect(forged.status).toBe(403);
  });

  it('shows the delivery log to its owner only, and lets only the owner delete it', async () => {
    const db = server.catalogue.db;
    const hook = await registerWebhook(
      db,
      { userId: carol, clientId: WEB_CLIENT_ID },
      { url: 'http://127.0.0.1:9/log' },
      { allowPrivate: true },
    );
    const dave = await signedIn('dave');
    expect((await dave.get(`/apiv2/account/webhooks/${hook.id}/`)).status).toBe(404);
    await dave.get('/apiv2/account/webhooks/');
    expect((await dave.post(`/apiv2/account/webhooks/${hook.id}/delete/`, {})).status).toBe(404);
    expect((await dave.post(`/apiv2/account/webhooks/${hook.id}/enable/`, {})).status).toBe(404);
    expect(await findWebhook(db, hook.id)).toBeDefined();

    const browser = await signedIn('carol');
    const log = await browser.get(`/apiv2/account/webhooks/${hook.id}/`);
    expect(log.status).toBe(200);
    expect(log.body).toContain('No delivery was attempted yet');
    expect((await browser.get('/apiv2/account/webhooks/x/')).status).toBe(404);
    await browser.get('/apiv2/account/webhooks/');
    const gone = await browser.post(`/apiv2/account/webhooks/${hook.id}/delete/`, {});
    expect(gone.status).toBe(303);
    expect(gone.headers.get('location')).toBe('/apiv2/account/webhooks/?deleted=1');
    expect(await findWebhook(db, hook.id)).toBeUndefined();
  });
});
