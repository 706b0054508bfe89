import { createHash } from 'node:crypto';
import { findCredentialByClientId, findUserByName, issueTokens } from '@earshot/catalogue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWebUser, startTestServer, type TestServer, WebClient } from '../support/index.ts';

/** The cells of the credentials table's row whose name cell starts with `name`. */
function row(body: string, name: string): string | undefined {
  // The name cell itself: a random key elsewhere in a row may hold the same letters.
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const nameCell = new RegExp(`<th scope="row">\\s*${escaped}`);
  return body.split('<tr').find((r) => nameCell.test(r));
}

describe('credential application page (black box)', () => {
  let server: TestServer;

  beforeAll(async () => {
    // Behind a TLS proxy, as deployed: its X-Forwarded-Proto: https lets Bearer calls and the
    // sign-in form through (OAUTH2_HTTPS_ONLY is on).
    server = await startTestServer({ TRUST_PROXY: '1' });
    await addWebUser(server.catalogue.db, 'carol');
    await addWebUser(server.catalogue.db, 'dave');
  });
  afterAll(() => server?.stop());

  async function signedIn(username = 'carol'): Promise<WebClient> {
    const browser = new WebClient(server.origin, { 'X-Forwarded-Proto': 'https' });
    expect((await browser.signIn(username)).status).toBe(303);
    return browser;
  }

  async function create(browser: WebClient, fields: Record<string, string>) {
    await browser.get('/apiv2/apply/');
    return browser.post('/apiv2/apply/', fields);
  }

  /** The client id and full API key of the row named `name` in a page that shows a fresh key. */
  function keysIn(body: string, name: string): { clientId: string; apiKey: string } {
    const cells = row(body, name) ?? '';
    const codes = [...cells.matchAll(/<code class="secret">([A-Za-z0-9]+)<\/code>/g)].map((m) => m[1]);
    expect(codes).toHaveLength(2);
    return { clientId: codes[0], apiKey: codes[1] };
  }

  /** Creates a credential and reads its key from the answer, the one page that shows it. */
  async function createKeys(browser: WebClient, fields: Record<string, string>) {
    const res = await create(browser, fields);
    expect(res.status).toBe(201);
    return keysIn(res.body, fields.name);
  }

  it('sends a visitor to the sign-in page, which brings them back', async () => {
    const res = await new WebClient(server.origin).get('/apiv2/apply/');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/apiv2/login/?next=%2Fapiv2%2Fapply%2F');
    const post = await new WebClient(server.origin).post('/apiv2/apply/', { name: 'x' });
    expect(post.status).toBe(403); // no session, no CSRF token: refused before anything else
  });

  it('creates a credential and lists its client id and API key in the contract’s column', async () => {
    const browser = await signedIn();
    const empty = await browser.get('/apiv2/apply/');
    expect(empty.status).toBe(200);
    expect(empty.body).toContain('You have no credentials yet');
    const res = await create(browser, {
      name: 'My <app>',
      description: 'Plays sounds',
      redirect_uri: 'https://app.example.org/callback',
    });
    // The answer is the page itself, with the key in full: it is not stored, so never cached.
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toContain('<th scope="col">Client id</th>');
    expect(res.body).toContain('<th scope="col">Client secret/Api key</th>');
    expect(res.body).toContain('My &lt;app&gt;'); // escaped
    expect(res.body).toContain('shown this once');
    const { clientId, apiKey } = keysIn(res.body, 'My &lt;app&gt;');
    expect(clientId).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(apiKey).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(res.body).toContain('https://app.example.org/callback');
    // The key works with the token strategy.
    const api = await fetch(`${server.origin}/apiv2/sounds/${server.seeded.ids.bd_808}/?token=${apiKey}`);
    expect(api.status).toBe(200);
    // Afterwards the page shows it masked: its first 4 characters, never the whole key.
    const later = await browser.get('/apiv2/apply/');
    expect(later.body).not.toContain(apiKey);
    expect(row(later.body, 'My &lt;app&gt;')).toContain(`<code class="secret masked"`);
    expect(row(later.body, 'My &lt;app&gt;')).toContain(`>${apiKey.slice(0, 4)}••••••••</code>`);
    // The database holds only the key's digest.
    const stored = await findCredentialByClientId(server.catalogue.db, clientId);
    expect(JSON.stringify(stored)).not.toContain(apiKey);
    expect(stored?.client_secret_digest).toBe(createHash('sha256').update(apiKey).digest('hex'));
    // Another user does not see it.
    expect((await (await signedIn('dave')).get('/apiv2/apply/')).body).not.toContain(clientId);
  });

  it('makes a new key on request, shown once: the old key is refused at once, the new one works', async () => {
    const browser = await signedIn();
    const { clientId, apiKey } = await createKeys(browser, {
      name: 'Rekeyed',
      redirect_uri: 'https://rekeyed.example.org/cb',
    });
    const soundUrl = `${server.origin}/apiv2/sounds/${server.seeded.ids.bd_808}/`;
    expect((await fetch(`${soundUrl}?token=${apiKey}`)).status).toBe(200); // now in the key cache
    // Someone else cannot make a new key for it.
    const dave = await signedIn('dave');
    await dave.get('/apiv2/apply/');
    expect((await dave.post('/apiv2/apply/regenerate/', { client_id: clientId })).status).toBe(404);
    expect((await fetch(`${soundUrl}?token=${apiKey}`)).status).toBe(200);

    await browser.get('/apiv2/apply/');
    const res = await browser.post('/apiv2/apply/regenerate/', { client_id: clientId });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const fresh = keysIn(res.body, 'Rekeyed');
    expect(fresh.clientId).toBe(clientId);
    expect(fresh.apiKey).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(fresh.apiKey).not.toBe(apiKey);
    expect((await fetch(`${soundUrl}?token=${apiKey}`)).status).toBe(401);
    expect((await fetch(`${soundUrl}?token=${fresh.apiKey}`)).status).toBe(200);
    expect((await browser.get('/apiv2/apply/')).body).not.toContain(fresh.apiKey);
  });

  it('accepts the service’s own code page as the redirect URL', async () => {
    const browser = await signedIn();
    const form = await browser.get('/apiv2/apply/');
    // The address the browser reached, https through the proxy.
    const codePage = `${server.origin.replace(/^http:/, 'https:')}/home/app_permissions/permission_granted/`;
    expect(form.body).toContain(codePage);
    const res = await create(browser, { name: 'Script', description: '', redirect_uri: codePage });
    expect(res.status).toBe(201);
  });

  it('shows the form again with field errors (400) for a missing name or a redirect URL that is not http(s)', async () => {
    const browser = await signedIn();
    for (const redirect of [
      'not a url',
      'ftp://example.org/x',
      'javascript:alert(1)',
      '/relative/path',
      '',
    ]) {
      const res = await create(browser, { name: 'Bad', description: 'd', redirect_uri: redirect });
      expect(res.status, redirect).toBe(400);
      expect(res.body).toContain('id="redirect_uri-error"');
      expect(res.body).toContain('aria-invalid="true"');
      expect(res.body).toContain('value="Bad"'); // what was typed is kept
    }
    const noName = await create(browser, { name: '  ', redirect_uri: 'http://localhost:8080/cb' });
    expect(noName.status).toBe(400);
    expect(noName.body).toContain('Give the application a name.');
    expect(noName.body).toContain('value="http://localhost:8080/cb"');
    expect(row((await browser.get('/apiv2/apply/')).body, 'Bad')).toBeUndefined();
  });

  it('revokes a credential: the API key gets 401 at once and its OAuth2 tokens too', async () => {
    const browser = await signedIn();
    const { clientId, apiKey } = await createKeys(browser, {
      name: 'Doomed',
      redirect_uri: 'https://doomed.example.org/cb',
    });
    const soundUrl = `${server.origin}/apiv2/sounds/${server.seeded.ids.bd_808}/`;
    const auth = { headers: { Authorization: `Token ${apiKey}` } };
    expect((await fetch(soundUrl, auth)).status).toBe(200); // now in the credential cache
    // An OAuth2 token issued to the application for carol (as the token endpoint would).
    const db = server.catalogue.db;
    const credential = await findCredentialByClientId(db, clientId);
    const carol = await findUserByName(db, 'carol');
    const tokens = await issueTokens(db, {
      credentialId: credential!.id,
      userId: carol!.id,
      scope: 'read write',
    });
    const bearer = {
      headers: { Authorization: `Bearer ${tokens.access_token}`, 'X-Forwarded-Proto': 'https' },
    };
    expect((await fetch(`${server.origin}/apiv2/me/`, bearer)).status).toBe(200);

    // Someone else cannot revoke it.
    const dave = await signedIn('dave');
    await dave.get('/apiv2/apply/');
    expect((await dave.post('/apiv2/apply/revoke/', { client_id: clientId })).status).toBe(404);
    expect((await fetch(soundUrl, auth)).status).toBe(200);

    // Nor can a forged form (wrong CSRF token).
    await browser.get('/apiv2/apply/');
    const forged = await browser.post('/apiv2/apply/revoke/', {
      client_id: clientId,
      csrf_token: 'x'.repeat(43),
    });
    expect(forged.status).toBe(403);
    expect((await fetch(soundUrl, auth)).status).toBe(200);

    const res = await browser.post('/apiv2/apply/revoke/', { client_id: clientId });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/apiv2/apply/?revoked=1');
    const after = await fetch(soundUrl, auth);
    expect(after.status).toBe(401);
    expect(((await after.json()) as { detail: string }).detail).toMatch(/token/i);
    const me = await fetch(`${server.origin}/apiv2/me/`, bearer);
    expect(me.status).toBe(401);
    expect(((await me.json()) as { detail: string }).detail).toBe('Invalid token');
    const list = await browser.get('/apiv2/apply/?revoked=1');
    expect(list.body).not.toContain(clientId);
    expect(list.body).toContain('no longer work');
  });

  it('refuses a create form without its CSRF token (403)', async () => {
    const browser = await signedIn();
    await browser.get('/apiv2/apply/');
    const res = await browser.post('/apiv2/apply/', {
      csrf_token: '',
      name: 'Sneaky',
      redirect_uri: 'https://x.example.org/',
    });
    expect(res.status).toBe(403);
    expect(row((await browser.get('/apiv2/apply/')).body, 'Sneaky')).toBeUndefined();
  });

  it('refuses a credential past CREDENTIALS_PER_USER (20) with a 409 page saying what to do', async () => {
    await addWebUser(server.catalogue.db, 'gina');
    const gina = await signedIn('gina');
    const fields = (i: number) => ({
      name: `app ${i}`,
      description: '',
      redirect_uri: 'https://example.org/cb',
    });
    for (let i = 1; i <= 20; i++) expect((await create(gina, fields(i))).status).toBe(201);
    const refused = await create(gina, fields(21));
    expect(refused.status).toBe(409);
    expect(refused.body).toContain(
      'An account may have at most 20 API credentials: revoke one that is no longer used before asking for another.',
    );
    expect(refused.body.split('scope="row"')).toHaveLength(21);
  });
});
