import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { z } from 'zod';
import { serveRoutes } from '../../../test/support/routes.ts';
import { resolvePage } from '../../application/paging.ts';
import { pageEnvelope, pageSchema, readPageQuery } from '../../v2/presenters/pagination.ts';
import { tokenStrategy } from '../auth/token-strategy.ts';
import { buildOpenApi } from './openapi.ts';
import { idParam } from './params.ts';
import { type AnyRoute, defineRoute } from './route.ts';

const echo = defineRoute({
  method: 'GET',
  path: '/t/items/{item_id}/',
  operationId: 'echo',
  summary: 'echo',
  tags: ['test'],
  auth: 'read',
  params: z.object({ item_id: idParam }),
  query: z.object({
    page: z.string().optional(),
    size: z.string().regex(/^\d+$/, 'must be a whole number').optional(),
  }),
  response: pageSchema(z.object({ id: z.number(), who: z.string() })),
  handler: async ({ params, query, origin, path, rawQuery, principal }) => {
    const page = readPageQuery({ page: query.page }, 'search');
    const count = 40;
    const { page: n } = resolvePage(page, count);
    return pageEnvelope({ origin, path, query: rawQuery }, n, page.pageSize, count, [
      { id: params.item_id, who: principal?.username ?? '' },
    ]);
  },
});

const open = defineRoute({
  method: 'GET',
  path: '/t/open/',
  operationId: 'open',
  summary: 'open',
  tags: ['test'],
  auth: 'public',
  response: z.object({ text: z.string(), list: z.array(z.number()), flag: z.boolean(), none: z.null() }),
  handler: async () => ({ text: 'a<b & c', list: [1, 2], flag: true, none: null }),
});

const routes: AnyRoute[] = [echo, open];
const keys = new Map([['good-key', { clientId: 'c1', userId: 7, username: 'alice', active: true }]]);
keys.set('suspended-key', { clientId: 'c2', userId: 8, username: 'bob', active: false });

describe('route framework over HTTP', () => {
  let origin: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ origin, close } = await serveRoutes(routes, {
      strategies: [tokenStrategy(async (k) => keys.get(k))],
    }));
  });
  afterAll(() => close());

  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${origin}${path}`, { headers });

  it('accepts the key as ?token= or as Authorization: Token', async () => {
    const q = await get('/t/items/5/?token=good-key');
    expect(q.status).toBe(200);
    expect(((await q.json()) as { results: { who: string }[] }).results[0].who).toBe('alice');
    const h = await get('/t/items/5/', { Authorization: 'Token good-key' });
    expect(h.status).toBe(200);
  });

  it('answers 401 with the contract wording for a missing, bad or suspended key', async () => {
    const none = await get('/t/items/5/');
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
    const bad = await get('/t/items/5/?token=nope');
    expect(bad.status).toBe(401);
    expect(await bad.json()).toEqual({ detail: 'Invalid token' });
    const badHeader = await get('/t/items/5/', { Authorization: 'Token nope' });
    expect(await badHeader.json()).toEqual({ detail: 'Invalid token' });
    const empty = await get('/t/items/5/', { Authorization: 'Token' });
    expect((await empty.json()) as unknown).toEqual({
      detail: 'Invalid token header. No credentials provided.',
    });
    const suspended = await get('/t/items/5/?token=suspended-key');
    expect(suspended.status).toBe(401);
  });

  it('names the bad parameter in a 400 and treats a malformed path id as 404', async () => {
    const res = await get('/t/items/5/?token=good-key&size=abc');
    expect(res.status).toBe(400);
    const body = (await res.json()) as { detail: string };
    expect(body.detail).toContain("'size'");
    expect(body.detail).toContain('whole number');
    const id = await get('/t/items/abc/?token=good-key');
    expect(id.status).toBe(404);
    expect(await id.json()).toEqual({ detail: 'Not found' });
  });

  it('builds absolute next/previous links from the request origin, page 1 without page=', async () => {
    const res = await get('/t/items/5/?token=good-key&page=2');
    const body = (await res.json()) as { count: number; next: string; previous: string };
    expect(body.count).toBe(40);
    expect(body.next).toBe(`${origin}/t/items/5/?token=good-key&page=3`);
    expect(body.previous).toBe(`${origin}/t/items/5/?token=good-key`);
    const last = (await (await get('/t/items/5/?token=good-key&page=3')).json()) as { next: unknown };
    expect(last.next).toBeNull();
  });

  it('follows links the way real clients mangle them: trailing ? and ?&format=json', async () => {
    const first = (await (await get('/t/items/5/?token=good-key')).json()) as { next: string };
    const withQuestion = await fetch(`${first.next}?`);
    expect(withQuestion.status).toBe(200);
    expect(((await withQuestion.json()) as { next: string }).next).toContain('page=3');
    const withFormat = await fetch(`${first.next}?&format=json`);
    expect(withFormat.status).toBe(200);
    expect(((await withFormat.json()) as { next: string }).next).toContain('page=3');
  });

  it('answers a page past the end with 404 Not found', async () => {
    const res = await get('/t/items/5/?token=good-key&page=4');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ detail: 'Not found' });
  });

  it('renders json, xml and yaml by format= and by Accept, and refuses an unknown format', async () => {
    const json = await get('/t/open/');
    expect(json.headers.get('content-type')).toMatch(/application\/json/);
    expect(await json.json()).toEqual({ text: 'a<b & c', list: [1, 2], flag: true, none: null });
    const xml = await get('/t/open/?format=xml');
    expect(xml.headers.get('content-type')).toMatch(/application\/xml/);
    expect(await xml.text()).toBe(
      '<?xml version="1.0" encoding="utf-8"?>\n<root><text>a&lt;b &amp; c</text><list><list-item>1</list-item><list-item>2</list-item></list><flag>True</flag><none></none></root>',
    );
    const yaml = await get('/t/open/?format=yaml');
    expect(YAML.parse(await yaml.text())).toEqual({ text: 'a<b & c', list: [1, 2], flag: true, none: null });
    const byAccept = await get('/t/open/', { Accept: 'application/yaml' });
    expect(byAccept.headers.get('content-type')).toMatch(/yaml/);
    const preferJson = await get('/t/open/', { Accept: 'application/xml;q=0.5, application/json' });
    expect(preferJson.headers.get('content-type')).toMatch(/json/);
    const bad = await get('/t/open/?format=csv');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { detail: string }).detail).toMatch(/format/);
  });

  it('renders errors in the requested format too', async () => {
    const res = await get('/t/items/5/?format=xml');
    expect(res.status).toBe(401);
    expect(await res.text()).toContain('<detail>Authentication credentials were not provided.</detail>');
  });

  it('answers a wrong method with 405 and CORS *', async () => {
    const res = await fetch(`${origin}/t/open/`, { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('links behind a proxy and with PUBLIC_URL', () => {
  it('uses X-Forwarded-* only when trusted and the host is allowed, and PUBLIC_URL over both', async () => {
    const trusted = await serveRoutes(routes, {
      strategies: [tokenStrategy(async (k) => keys.get(k))],
      proxy: true,
      allowedHosts: ['api.example.com'],
    });
    const untrusted = await serveRoutes(routes, { strategies: [tokenStrategy(async (k) => keys.get(k))] });
    const fixed = await serveRoutes(routes, {
      strategies: [tokenStrategy(async (k) => keys.get(k))],
      publicUrl: 'https://sounds.example.org/',
    });
    const headers = { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'api.example.com' };
    try {
      const next = async (o: string) =>
        ((await (await fetch(`${o}/t/items/1/?token=good-key`, { headers })).json()) as { next: string })
          .next;
      expect(await next(trusted.origin)).toBe('https://api.example.com/t/items/1/?token=good-key&page=2');
      // A forwarded host the deployment does not know is not reflected: the address reached is.
      const other = await fetch(`${trusted.origin}/t/items/1/?token=good-key`, {
        headers: { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'evil.example.net' },
      });
      const port = new URL(trusted.origin).port;
      expect(((await other.json()) as { next: string }).next).toBe(
        `https://127.0.0.1:${port}/t/items/1/?token=good-key&page=2`,
      );
      expect(await next(untrusted.origin)).toBe(`${untrusted.origin}/t/items/1/?token=good-key&page=2`);
      expect(await next(fixed.origin)).toBe('https://sounds.example.org/t/items/1/?token=good-key&page=2');
    } finally {
      await Promise.all([trusted.close(), untrusted.close(), fixed.close()]);
    }
  });
});

describe('page rules', () => {
  it('search paging: bogus page is 1, page below 1 and page_size below 1 are 404, page_size caps at 150', () => {
    expect(readPageQuery({ page: 'abc' }, 'search').page).toBe(1);
    expect(() => readPageQuery({ page: '0' }, 'search')).toThrow('Not found');
    expect(() => readPageQuery({ page_size: '0' }, 'search')).toThrow('Not found');
    expect(readPageQuery({ page_size: '1000' }, 'search').pageSize).toBe(150);
    expect(readPageQuery({}, 'search').pageSize).toBe(15);
  });
  it('list paging: bogus page is "Invalid page.", page=last works, bad page_size is 15', () => {
    expect(() => readPageQuery({ page: 'abc' }, 'list')).toThrow('Invalid page.');
    const last = readPageQuery({ page: 'last', page_size: '-3' }, 'list');
    expect(last.pageSize).toBe(15);
    expect(resolvePage(last, 31)).toEqual({ page: 3, offset: 30 });
    expect(() => resolvePage(readPageQuery({ page: '2' }, 'list'), 0)).toThrow('Invalid page.');
    expect(resolvePage(readPageQuery({ page: '2' }, 'search'), 0).page).toBe(2);
  });
});

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3 document describing every route, its parameters and auth', async () => {
    const doc = buildOpenApi(routes, { title: 't', version: '1' });
    const validated = (await SwaggerParser.validate(structuredClone(doc) as never)) as unknown as {
      paths: Record<
        string,
        Record<string, { parameters: { name: string; in: string }[]; security: unknown[] }>
      >;
    };
    const op = validated.paths['/t/items/{item_id}/'].get;
    expect(op.parameters.map((p) => `${p.in}:${p.name}`)).toEqual([
      'path:item_id',
      'query:page',
      'query:size',
      'query:format',
    ]);
    expect(op.security.length).toBeGreaterThan(0);
    expect(validated.paths['/t/open/'].get.security).toEqual([]);
  });
});
