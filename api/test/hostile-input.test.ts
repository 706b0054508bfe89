import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { soundMediaPaths } from '@earshot/catalogue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';

/**
 * Requests an attacker or a buggy client sends (issue 19's reproductions): each must be a 4xx with
 * a `detail`, never a 500, and must not cost the server more than a normal request.
 */

let s: TestServer;
let key: string;
let ids: Record<string, number>;

beforeAll(async () => {
  s = await startTestServer();
  key = s.seeded.apiKey;
  ids = s.seeded.ids;
});
afterAll(async () => {
  await s?.stop();
});

async function status(pathAndQuery: string, init: RequestInit & { token?: string | null } = {}) {
  const url = new URL(`${s.origin}${pathAndQuery}`);
  if (init.token !== null) url.searchParams.set('token', init.token ?? key);
  const res = await fetch(url, init);
  const text = await res.text();
  return { status: res.status, text };
}

describe('ids beyond the database integer range', () => {
  const huge = ['2147483648', '99999999999', '999999999999999'];
  it.each(huge)('are a 404 like any missing object (%s)', async (id) => {
    for (const p of [
      `/apiv2/sounds/${id}/`,
      `/apiv2/sounds/${id}/analysis/`,
      `/apiv2/sounds/${id}/similar/`,
      `/apiv2/sounds/${id}/comments/`,
      `/apiv2/packs/${id}/`,
      `/apiv2/packs/${id}/sounds/`,
    ]) {
      const r = await status(p);
      expect(r.status, p).toBe(404);
      expect(JSON.parse(r.text)).toHaveProperty('detail');
    }
    const media = await status(`/media/sounds/${id}/preview-hq.mp3`, { token: null });
    expect(media.status).toBe(404);
  });
});

describe('NUL bytes', () => {
  it.each([
    ['a username', '/apiv2/users/bo%00b/'],
    ['a query value', '/apiv2/search/?query=a%00b'],
  ])('in %s are a 400 naming the NUL character, not a database error', async (_, p) => {
    const r = await status(p);
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text).detail).toMatch(/NUL/);
  });
  it('in ?token= are a 400 too, before any credential lookup', async () => {
    const r = await status(`/apiv2/sounds/${ids.bd_808}/`, { token: 'abc\u0000def' });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text).detail).toMatch(/NUL/);
  });
  it('in a POST body are a 400 naming the parameter', async () => {
    const r = await status('/apiv2/search/', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'query=a%00b',
    });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text).detail).toMatch(/"query".*NUL/);
  });
});

describe('huge page numbers', () => {
  it('on content and combined search with a target are a 404 past the end, quickly', async () => {
    for (const p of [
      `/apiv2/search/content/?target=${ids.bd_808}&page=99999999999`,
      `/apiv2/search/combined/?target=${ids.bd_808}&filter=duration:[0 TO 100]&page=99999999999`,
    ]) {
      const r = await status(p);
      expect(r.status, p).toBe(404);
    }
  });
  it('on lists are a 404 past the end, not a bigint overflow', async () => {
    for (const p of [
      '/apiv2/search/?query=&page=100000000000000000000',
      '/apiv2/users/bob/sounds/?page=100000000000000000000',
      `/apiv2/sounds/${ids.bd_808}/similar/?page=100000000000000000000`,
    ]) {
      const r = await status(p);
      expect(r.status, p).toBe(404);
    }
  });
});

describe('a stored file missing from disk', () => {
  it('is a 404, not a 500', async () => {
    const id = ids.bd_808;
    const paths = await soundMediaPaths(s.catalogue.db, id);
    const preview = paths?.['preview-lq-mp3'];
    expect(preview).toBeTruthy();
    const file = path.join(s.dataDir, preview as string);
    const kept = `${file}.kept`;
    expect((await status(`/media/sounds/${id}/preview-lq.mp3`, { token: null })).status).toBe(200);
    await fs.rename(file, kept);
    try {
      const r = await status(`/media/sounds/${id}/preview-lq.mp3`, { token: null });
      expect(r.status).toBe(404);
      expect(JSON.parse(r.text)).toHaveProperty('detail');
    } finally {
      await fs.rename(kept, file);
    }
  });
});

describe('methods', () => {
  it('TRACE is refused as a method the resource does not allow (405), not 501', async () => {
    const url = new URL(`${s.origin}/apiv2/sounds/${ids.bd_808}/?token=${key}`);
    const code = await new Promise<number | undefined>((resolve, reject) => {
      const req = http.request(url, { method: 'TRACE' }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', reject);
      req.end();
    });
    expect(code).toBe(405);
  });
  it.each([
    ['a path no route matches', '/apiv2/packs//download/'],
    ['a page', '/apiv2/login/'],
    ['nowhere at all', '/nothing/here'],
  ])('TRACE on %s is a 4xx, not the 501 of a router that does not know the method', async (_, p) => {
    const code = await new Promise<number | undefined>((resolve, reject) => {
      const req = http.request(new URL(`${s.origin}${p}`), { method: 'TRACE' }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', reject);
      req.end();
    });
    expect(code).toBeGreaterThanOrEqual(400);
    expect(code).toBeLessThan(500);
  });
});

describe('CORS preflight', () => {
  it('answers the API paths with fixed lists, not the headers or methods a page asks for', async () => {
    const res = await fetch(`${s.origin}/apiv2/sounds/${ids.bd_808}/`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://app.example',
        'Access-Control-Request-Method': 'DELETE',
        'Access-Control-Request-Headers': 'X-Evil, Authorization',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-headers')).not.toMatch(/X-Evil/i);
    expect(res.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
    expect(res.headers.get('access-control-allow-methods')).not.toMatch(/DELETE|PUT|PATCH/);
  });
  it('is not a blanket 204 on paths that are not the API', async () => {
    const res = await fetch(`${s.origin}/anything/at/all`, { method: 'OPTIONS' });
    expect(res.status).toBe(404);
  });
});
