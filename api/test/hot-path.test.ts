import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { createLogger, ValidationError } from '@earshot/common';
import { SimilarityLoading } from '@earshot/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SoundNotFound } from '../src/application/sounds.ts';
import { RenderedCache } from '../src/caches/rendered-json.ts';
import { SearchPageCache } from '../src/caches/search-pages.ts';
import { tokenStrategy } from '../src/framework/auth/token-strategy.ts';
import { RenderedJson } from '../src/framework/http/rendered-json.ts';
import { versionInScope } from '../src/framework/http/request-version.ts';
import { soundInstanceKey } from '../src/framework/http/sound-instance-key.ts';
import { UNAVAILABLE_LOG_MESSAGE } from '../src/framework/middleware/unavailable-log.ts';
import { soundInstanceHotPath } from '../src/hot-path.ts';

/**
 * The hot path alone, in front of a stand-in application that answers 599: which requests it
 * serves from the rendered cache and which it must leave to the application.
 */

const KEY = 'k'.repeat(40);
const SUSPENDED = 's'.repeat(40);
let origin: string;
let server: http.Server;
const cache = new RenderedCache(60_000);

beforeAll(async () => {
  const strategy = tokenStrategy(async (key) => {
    if (key === KEY) return { clientId: 'c', userId: 1, username: 'alice', active: true };
    if (key === SUSPENDED) return { clientId: 'd', userId: 2, username: 'bob', active: false };
    return undefined;
  });
  const hot = soundInstanceHotPath({
    renderedSounds: cache,
    strategies: [strategy],
    publicUrl: undefined,
    logger: createLogger('silent'),
  });
  server = http.createServer((req, res) => {
    hot(req, res).then((served) => {
      if (served) return;
      res.writeHead(599);
      res.end('application');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  cache.remember(soundInstanceKey(7, origin, {}), { id: 7, name: 'seven' });
  cache.remember(soundInstanceKey(7, origin, { fields: 'id' }), { id: 7 });
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const auth = { Authorization: `Token ${KEY}` };

/** A page cache over a feed at version 7: a page not kept is computed under it (versionInScope). */
function pagesAtVersion7(): SearchPageCache {
  return new SearchPageCache(
    {
      current: async () => 7,
      onChange: () => {},
      beforeRequest: async () => undefined,
      close: async () => {},
    },
    () => '',
  );
}

describe('soundInstanceHotPath', () => {
  it('serves a cached instance with the application’s headers', async () => {
    const res = await fetch(`${origin}/apiv2/sounds/7/`, { headers: { ...auth, 'X-Request-Id': 'r-1' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: 7, name: 'seven' });
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('x-request-id')).toBe('r-1');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('vary')).toBe('Accept');
    const byQuery = await fetch(`${origin}/apiv2/sounds/7/?fields=id&token=${KEY}&format=json`);
    expect(await byQuery.json()).toEqual({ id: 7 });
    const withAccept = await fetch(`${origin}/apiv2/sounds/7/`, {
      headers: { ...auth, Accept: 'application/json, */*' },
    });
    expect(withAccept.status).toBe(200);
  });

  it('leaves every other case to the application', async () => {
    const fallsThrough = async (path: string, headers: Record<string, string> = auth, method = 'GET') => {
      const res = await fetch(`${origin}${path}`, { headers, method });
      expect(res.status, `${method} ${path}`).toBe(599);
    };
    await fallsThrough('/apiv2/sounds/7/', {}); // no credential: the application's 401
    await fallsThrough('/apiv2/sounds/7/', { Authorization: 'Token wrong' });
    await fallsThrough('/apiv2/sounds/7/', { Authorization: `Token ${SUSPENDED}` });
    await fallsThrough('/apiv2/sounds/7/', { Authorization: 'Token two parts' });
    await fallsThrough('/apiv2/sounds/8/'); // not cached
    await fallsThrough('/apiv2/sounds/7/?fields=name'); // another selection, not cached
    await fallsThrough('/apiv2/sounds/7/?format=xml');
    await fallsThrough('/apiv2/sounds/7/', { ...auth, Accept: 'application/yaml' });
    await fallsThrough('/apiv2/sounds/7/?page=2'); // a parameter the instance does not read
    await fallsThrough('/apiv2/sounds/7'); // no trailing slash
    await fallsThrough('/apiv2/sounds/7/analysis/');
    await fallsThrough('/apiv2/sounds/7/', auth, 'HEAD');
    await fallsThrough('/apiv2/sounds/7/', auth, 'POST');
  });
});

describe('soundInstanceHotPath with renderSound (cold version 2 instances)', () => {
  let coldOrigin: string;
  let coldServer: http.Server;
  const rendered: Array<{ id: number; query: unknown }> = [];
  const counted: string[] = [];
  beforeAll(async () => {
    const strategy = tokenStrategy(async (key) =>
      key === KEY ? { clientId: 'c', userId: 1, username: 'alice', active: true } : undefined,
    );
    const hot = soundInstanceHotPath({
      renderedSounds: new RenderedCache(60_000),
      strategies: [strategy],
      publicUrl: undefined,
      logger: createLogger('silent'),
      rateLimiter: {
        check: (subject) => {
          counted.push(String(subject.clientId));
          return counted.length > 5
            ? { allowed: false, detail: 'Request was throttled', headers: {} }
            : { allowed: true, headers: {} };
        },
        usage: () => Promise.reject(new Error('not asked here')),
        close: async () => {},
      },
      renderSound: async (id, _origin, query) => {
        rendered.push({ id, query });
        if (id === 404) throw new SoundNotFound();
        if (query.fields === 'nope') throw new ValidationError('Unknown field "nope".');
        if (id === 500) throw new Error('database gone');
        return new RenderedJson({ id });
      },
      searchPages: pagesAtVersion7(),
      renderSimilar: async (id, input) => {
        rendered.push({ id, query: input.query });
        return { count: 0, target: id, path: input.path, raw: input.rawQuery };
      },
      renderTextSearch: async (input) => {
        rendered.push({ id: 0, query: input.query });
        if (input.query.filter === 'bad:') throw new ValidationError('Invalid filter.');
        return {
          count: 0,
          path: input.path,
          raw: input.rawQuery,
          origin: input.origin,
          version: versionInScope.getStore(),
        };
      },
    });
    coldServer = http.createServer((req, res) => {
      hot(req, res).then((served) => {
        if (served) return;
        res.writeHead(599);
        res.end('application');
      });
    });
    await new Promise<void>((resolve) => coldServer.listen(0, '127.0.0.1', resolve));
    coldOrigin = `http://127.0.0.1:${(coldServer.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => coldServer.close(() => resolve())));

  it('reads a cold instance itself and answers its errors as the application does, counting each once', async () => {
    const get = async (path: string, headers: Record<string, string> = auth) => {
      const res = await fetch(`${coldOrigin}${path}`, { headers });
      return { status: res.status, body: await res.text(), type: res.headers.get('content-type') };
    };
    expect(await get('/apiv2/sounds/8/?fields=id,name')).toEqual({
      status: 200,
      body: '{"id":8}',
      type: 'application/json; charset=utf-8',
    });
    expect(rendered.at(-1)).toEqual({ id: 8, query: { fields: 'id,name' } });
    expect(await get('/apiv2/sounds/404/')).toMatchObject({
      status: 404,
      body: JSON.stringify({ detail: 'No Sound matches the given query.' }),
    });
    expect(await get('/apiv2/sounds/9/?fields=nope')).toMatchObject({
      status: 400,
      body: JSON.stringify({ detail: 'Unknown field "nope".' }),
    });
    expect(await get('/apiv2/sounds/500/')).toMatchObject({
      status: 500,
      body: JSON.stringify({ detail: 'Internal server error.' }),
    });
    expect(counted).toHaveLength(4);
    // Refused before any read: a missing key, an id beyond the database's integers, a NUL byte.
    const reads = rendered.length;
    expect((await get('/apiv2/sounds/8/', {})).status).toBe(599);
    expect((await get('/apiv2/sounds/99999999999/')).status).toBe(599);
    expect((await get('/apiv2/sounds/8/?fields=id%00')).status).toBe(599);
    expect(rendered).toHaveLength(reads);
    // A throttled client is answered 429 without a read.
    await get('/apiv2/sounds/10/');
    expect(await get('/apiv2/sounds/11/')).toMatchObject({
      status: 429,
      body: JSON.stringify({ detail: 'Request was throttled' }),
    });
    expect(rendered.map((r) => r.id)).not.toContain(11);
  });

  it('reads a cold page of similar sounds with the route’s input', async () => {
    counted.length = 0;
    const res = await fetch(`${coldOrigin}/apiv2/sounds/12/similar/?fields=id&page_size=5&x=1`, {
      headers: auth,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      count: 0,
      target: 12,
      path: '/apiv2/sounds/12/similar/',
      raw: { fields: 'id', page_size: '5', x: '1' },
    });
    expect(rendered.at(-1)).toEqual({ id: 12, query: { fields: 'id', page_size: '5' } });
    const beyond = await fetch(`${coldOrigin}/apiv2/sounds/99999999999/similar/`, { headers: auth });
    expect(beyond.status).toBe(599);
  });

  it('reads a cold page of text search with the route’s input, and leaves the others to the application', async () => {
    counted.length = 0;
    const get = async (path: string) => {
      const res = await fetch(`${coldOrigin}${path}`, { headers: auth });
      return { status: res.status, body: await res.text() };
    };
    for (const path of ['/apiv2/search/', '/apiv2/search/text/']) {
      const res = await get(`${path}?query=dog&page_size=5&x=1`);
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body)).toEqual({
        count: 0,
        path,
        raw: { query: 'dog', page_size: '5', x: '1' },
        origin: coldOrigin,
        version: 7,
      });
      expect(rendered.at(-1)).toEqual({ id: 0, query: { query: 'dog', page_size: '5' } });
    }
    // The route's errors, answered as the application answers them.
    expect(await get('/apiv2/search/?filter=bad:')).toEqual({
      status: 400,
      body: JSON.stringify({ detail: 'Invalid filter.' }),
    });
    expect(counted).toHaveLength(3);
    // A parameter the route's schema refuses, a NUL byte, another kind of search: the application's.
    const reads = rendered.length;
    expect((await get('/apiv2/search/?facets=nope')).status).toBe(599);
    expect((await get('/apiv2/search/?query=a%00')).status).toBe(599);
    expect((await get('/apiv2/search/content/?target=x')).status).toBe(599);
    expect((await get('/api/sounds/search/?q=dog')).status).toBe(599);
    expect(rendered).toHaveLength(reads);
  });
});

describe('soundInstanceHotPath: the 503s it answers itself', () => {
  it('logs each once at warn with its cause, the key redacted: a database out of reach, the similarity indexes loading', async () => {
    // A real refused connection: a port just closed.
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const refused = await new Promise<Error>((resolve) =>
      net.connect(port, '127.0.0.1').on('error', (err) => resolve(err)),
    );
    expect((refused as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
    const lines: string[] = [];
    const hot = soundInstanceHotPath({
      renderedSounds: new RenderedCache(60_000),
      strategies: [
        tokenStrategy(async (key) =>
          key === KEY ? { clientId: 'c', userId: 1, username: 'alice', active: true } : undefined,
        ),
      ],
      publicUrl: undefined,
      logger: createLogger('info', 'earshot', { write: (line: string) => lines.push(line) }),
      renderSound: async () => {
        throw refused;
      },
      searchPages: pagesAtVersion7(),
      renderSimilar: async () => {
        throw new SimilarityLoading();
      },
    });
    const app = http.createServer((req, res) => {
      hot(req, res).then((served) => {
        if (served) return;
        res.writeHead(599);
        res.end('application');
      });
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    const at = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
    try {
      for (const [path, cause] of [
        [`/apiv2/sounds/8/?token=${KEY}`, { message: refused.message, code: 'ECONNREFUSED' }],
        [
          `/apiv2/sounds/8/similar/?token=${KEY}`,
          { message: new SimilarityLoading().message, code: 'unavailable' },
        ],
      ] as const) {
        lines.length = 0;
        const res = await fetch(`${at}${path}`);
        expect(res.status, path).toBe(503);
        const warned = lines.map((l) => JSON.parse(l)).filter((l) => l.level === 40);
        expect(warned, path).toHaveLength(1);
        expect(warned[0]).toMatchObject({
          msg: UNAVAILABLE_LOG_MESSAGE,
          url: path.replace(KEY, '[REDACTED]'),
          cause,
        });
        expect(lines.join('\n')).not.toContain(KEY);
      }
    } finally {
      await new Promise<void>((resolve) => app.close(() => resolve()));
    }
  });
});
