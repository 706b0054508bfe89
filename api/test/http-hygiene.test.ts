import http from 'node:http';
import net from 'node:net';
import { findCredentialByClientId, findUserByName, issueTokens } from '@earshot/catalogue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/index.ts';

/** A GET through node:http, which (unlike fetch) lets a test send any Host header. */
function get(origin: string, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>(
    (resolve, reject) => {
      const req = http.get(new URL(path, origin), { headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on('error', reject);
    },
  );
}

/** Issue 19's hygiene items, black box on a real server. */
describe('HTTP hygiene (black box)', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ ALLOWED_HOSTS: 'sounds.example.org' });
  });
  afterAll(() => server?.stop());

  const soundPath = () => `/apiv2/sounds/${server.seeded.ids.bd_808}/?token=${server.seeded.apiKey}`;

  it('puts the security headers on every answer: API, hot path, errors, pages', async () => {
    const answers = {
      api: await get(server.origin, soundPath()),
      hotPath: await get(server.origin, soundPath()), // the second answer comes from the hot path
      notFound: await get(server.origin, '/apiv2/nothing-here/'),
      unauthorized: await get(server.origin, '/apiv2/search/'),
      page: await get(server.origin, '/apiv2/login/'),
      health: await get(server.origin, '/health'),
    };
    for (const [name, res] of Object.entries(answers)) {
      expect(res.headers['x-content-type-options'], name).toBe('nosniff');
      expect(res.headers['x-frame-options'], name).toBe('DENY');
      expect(res.headers['referrer-policy'], name).toMatch(/^(no-referrer|same-origin)$/);
      expect(res.headers['content-security-policy'], name).toContain("frame-ancestors 'none'");
    }
    expect(answers.api.status).toBe(200);
    expect(answers.api.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(answers.hotPath.headers['content-security-policy']).toBe(
      answers.api.headers['content-security-policy'],
    );
    expect(answers.page.headers['content-type']).toMatch(/^text\/html/);
    expect(answers.page.headers['content-security-policy']).toContain("style-src 'self'");
  });

  it('answers every 401 with a WWW-Authenticate challenge naming the scheme', async () => {
    const none = await get(server.origin, '/apiv2/search/');
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="api", Token realm="api"');
    const badKey = await get(server.origin, '/apiv2/search/?token=nonsense');
    expect(badKey.status).toBe(401);
    expect(JSON.parse(badKey.body)).toEqual({ detail: 'Invalid token' });
    expect(badKey.headers['www-authenticate']).toBe('Token realm="api"');
    const badHeader = await get(server.origin, '/apiv2/search/', { Authorization: 'Token' });
    expect(badHeader.headers['www-authenticate']).toBe('Token realm="api"');
    const badBearer = await get(server.origin, '/apiv2/search/', { Authorization: 'Bearer nonsense' });
    expect(badBearer.status).toBe(401);
    expect(badBearer.headers['www-authenticate']).toBe(
      'Bearer realm="api", error="invalid_token", error_description="The access token is invalid."',
    );
    const oauthOnly = await get(server.origin, '/apiv2/me/');
    expect(oauthOnly.status).toBe(401);
    expect(oauthOnly.headers['www-authenticate']).toBe('Bearer realm="api"');

    // An expired token: issued two days ago, so past its 24 hours.
    const db = server.catalogue.db;
    const credential = await findCredentialByClientId(db, server.seeded.clientId);
    const user = await findUserByName(db, 'alice');
    const old = await issueTokens(db, {
      credentialId: credential!.id,
      userId: user!.id,
      scope: 'read write',
      now: new Date(Date.now() - 2 * 86_400_000),
    });
    const expired = await get(server.origin, '/apiv2/search/', {
      Authorization: `Bearer ${old.access_token}`,
    });
    expect(expired.status).toBe(401);
    expect(expired.headers['www-authenticate']).toBe(
      'Bearer realm="api", error="invalid_token", error_description="The access token has expired."',
    );
  });

  it('builds links from the Host header only when it is an allowed host', async () => {
    const port = new URL(server.origin).port;
    const evil = await get(server.origin, soundPath(), { Host: 'evil.example.net' });
    expect(evil.status).toBe(200);
    expect(evil.body).not.toContain('evil.example.net');
    expect(JSON.parse(evil.body).url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/people/`));
    // Twice: the hot path builds its own origin.
    expect((await get(server.origin, soundPath(), { Host: 'evil.example.net' })).body).not.toContain('evil');
    const hostile = await get(server.origin, soundPath(), { Host: 'sounds.example.org@evil.example.net' });
    expect(hostile.body).not.toContain('evil');
    const allowed = await get(server.origin, soundPath(), { Host: 'sounds.example.org:8443' });
    expect(JSON.parse(allowed.body).url).toMatch(/^http:\/\/sounds\.example\.org:8443\/people\//);
    const search = await get(
      server.origin,
      `/apiv2/search/?query=&page_size=1&token=${server.seeded.apiKey}`,
      {
        Host: 'evil.example.net',
      },
    );
    expect(JSON.parse(search.body).next).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/apiv2/search/`));
  });

  it('builds version 1 links from an allowed Host too, the same from the application and the hot path', async () => {
    const port = new URL(server.origin).port;
    const key = server.seeded.apiKey;
    for (const path of [
      `/api/sounds/${server.seeded.ids.bd_808}/?api_key=${key}`,
      `/api/sounds/search/?q=&sounds_per_page=1&api_key=${key}`,
    ]) {
      // Twice each: the first answer is the application's, the second the hot path's (cached by origin).
      for (let i = 0; i < 2; i++) {
        const allowed = await get(server.origin, path, { Host: 'sounds.example.org:8443' });
        expect(allowed.status).toBe(200);
        const ref = path.includes('search') ? JSON.parse(allowed.body).next : JSON.parse(allowed.body).ref;
        expect(ref, `${path} #${i}`).toMatch(/^http:\/\/sounds\.example\.org:8443\/api\//);
        const evil = await get(server.origin, path, { Host: 'evil.example.net' });
        expect(evil.body).not.toContain('evil');
        const fallback = path.includes('search') ? JSON.parse(evil.body).next : JSON.parse(evil.body).ref;
        expect(fallback).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/api/`));
      }
    }
  });

  it('refuses a 200 MB POST body with 413 before reading it, and a chunked one past the limit', async () => {
    const { port } = new URL(server.origin);
    const socket = net.connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let answer = '';
    socket.on('data', (c: Buffer) => {
      answer += c.toString('utf8');
    });
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.on('error', () => {}); // the server may reset while we still write
    socket.write(
      `POST /apiv2/search/?token=${server.seeded.apiKey} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
        `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${200 * 1024 * 1024}\r\n\r\nquery=`,
    );
    // Only 64 KB of the 200 MB announced are ever sent; the answer must come anyway.
    socket.write(Buffer.alloc(64 * 1024, 'a'));
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(answer).toContain('{"detail":"The body is larger than 256 KB."}');

    const chunked = await fetch(`${server.origin}/apiv2/search/?token=${server.seeded.apiKey}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(`query=${'a'.repeat(300 * 1024)}`));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(await chunked.json()).toEqual({ detail: 'The body is larger than 256 KB.' });
    // A body within the limit is read as before.
    const small = await fetch(`${server.origin}/apiv2/search/?token=${server.seeded.apiKey}`, {
      method: 'POST',
      body: new URLSearchParams({ query: 'drum' }),
    });
    expect(small.status).toBe(200);
  });

  it('redirects a version 2 path written without its trailing slash, query kept; the token endpoint answers both ways', async () => {
    const key = server.seeded.apiKey;
    const id = server.seeded.ids.bd_808;
    // The contract's browseable address, literally.
    const root = await fetch(`${server.origin}/apiv2`, {
      redirect: 'manual',
      headers: { Accept: 'text/html' },
    });
    expect(root.status).toBe(301);
    expect(root.headers.get('location')).toBe('/apiv2/');
    for (const [path, target] of [
      [`/apiv2/sounds/${id}?token=${key}&fields=id`, `/apiv2/sounds/${id}/?token=${key}&fields=id`],
      [`/apiv2/search?token=${key}&query=kick`, `/apiv2/search/?token=${key}&query=kick`],
      [`/apiv2/users/alice/packs?token=${key}`, `/apiv2/users/alice/packs/?token=${key}`],
      [`/apiv2/me`, `/apiv2/me/`],
    ]) {
      const res = await fetch(`${server.origin}${path}`, { redirect: 'manual' });
      expect(res.status, path).toBe(301);
      expect(res.headers.get('location'), path).toBe(target);
      await res.arrayBuffer();
    }
    const followed = await fetch(`${server.origin}/apiv2/sounds/${id}?token=${key}&fields=id`);
    expect(followed.status).toBe(200);
    expect(await followed.json()).toEqual({ id });
    // A POST keeps its method and body through a 308.
    const post = await fetch(`${server.origin}/apiv2/search/text?token=${key}`, {
      method: 'POST',
      body: new URLSearchParams({ query: 'kick', fields: 'id' }),
      redirect: 'manual',
    });
    expect(post.status).toBe(308);
    expect(post.headers.get('location')).toBe(`/apiv2/search/text/?token=${key}`);
    // Upstream's token endpoint is access_token[/]*: served at both, no redirect.
    const form = { grant_type: 'bogus', client_id: 'c', client_secret: 's' };
    const slash = await fetch(`${server.origin}/apiv2/oauth2/access_token/`, {
      method: 'POST',
      body: new URLSearchParams(form),
      redirect: 'manual',
    });
    const bare = await fetch(`${server.origin}/apiv2/oauth2/access_token`, {
      method: 'POST',
      body: new URLSearchParams(form),
      redirect: 'manual',
    });
    expect(bare.status).toBe(slash.status);
    expect(await bare.json()).toEqual(await slash.json());
    // No redirect to a path that does not exist either way.
    const nothing = await fetch(`${server.origin}/apiv2/nothing-here?token=${key}`, { redirect: 'manual' });
    expect(nothing.status).toBe(404);
  });
});
