import { createTestDatabase } from '@earshot/catalogue/testing';
import { testService } from '@earshot/common/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';

/**
 * `facets=` on `/apiv2/search/text/` (issue 36, docs/api.md "Beyond the contract"), on the seeded
 * catalogue and both databases, served from the posting index once it is built (phrases too; the
 * empty query and other filters from PostgreSQL): each value's count is the count of the same search with the value as a filter, the
 * answer without `facets` is the contract's envelope, and a bad facet is a 400 naming the good ones.
 */

const postgresUrl = await testService('postgres');
const backends = postgresUrl ? ['pglite', 'postgres'] : ['pglite'];

type Json = Record<string, any>;

const ALL = 'tags,license,type,category,subcategory,username,pack,samplerate,channels,bitdepth';

/** The filter clause of a facet value, as a client would write it (docs/api.md). */
function clause(facet: string, value: string | number): string {
  if (typeof value === 'number') return `${facet}:${value}`;
  const field = facet === 'tags' ? 'tag' : facet === 'pack' ? 'pack_grouping' : facet;
  return `${field}:"${value}"`;
}

describe.each(backends)('facets of /apiv2/search/text/ on %s', (backend) => {
  let s: TestServer;
  let database: { url: string; drop(): Promise<void> } | undefined;

  beforeAll(async () => {
    database = backend === 'postgres' ? await createTestDatabase(postgresUrl as string) : undefined;
    s = await startTestServer(database ? { DATABASE_URL: database.url } : {});
    await vi.waitFor(
      async () => {
        const ready = (await (await fetch(`${s.origin}/ready`)).json()) as Json;
        expect(ready.text_search).toBe('index');
      },
      { timeout: 60_000, interval: 50 },
    );
  }, 180_000);
  afterAll(async () => {
    await s?.stop();
    await database?.drop();
  });

  async function get(path: string, query: Record<string, string>): Promise<{ status: number; body: Json }> {
    const res = await fetch(`${s.origin}${path}?${new URLSearchParams(query)}`, {
      headers: { Authorization: `Token ${s.seeded.apiKey}` },
    });
    return { status: res.status, body: (await res.json()) as Json };
  }
  const search = (query: Record<string, string>) => get('/apiv2/search/text/', query);

  it('counts each value as the same search with the value as a filter', async () => {
    let checked = 0;
    for (const request of [
      { query: '' },
      { query: 'drum' },
      { query: 'kick', filter: 'license:"Attribution" OR license:"Creative Commons 0"' },
      { query: '"kick drum"' },
      { query: 'drum', group_by_pack: '1' },
    ] as Record<string, string>[]) {
      const { status, body } = await search({ ...request, facets: ALL, facet_limit: '100' });
      expect(status, JSON.stringify(body)).toBe(200);
      expect(Object.keys(body.facets).sort()).toEqual(ALL.split(',').sort());
      for (const [facet, values] of Object.entries(
        body.facets as Record<string, [string | number, number][]>,
      )) {
        for (const [value, count] of values) {
          const filter = request.filter
            ? `(${request.filter}) AND ${clause(facet, value)}`
            : clause(facet, value);
          const filtered = await search({ query: request.query, filter });
          expect(filtered.status).toBe(200);
          expect(count, `${JSON.stringify(request)} ${facet}=${value}`).toBe(filtered.body.count);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(40);
  }, 120_000);

  it('keeps the top values, most frequent first, up to facet_limit', async () => {
    const { body } = await search({ query: '', facets: 'tags, license,tags', facet_limit: '2' });
    expect(Object.keys(body.facets)).toEqual(['tags', 'license']);
    expect(body.facets.tags).toHaveLength(2);
    const all = await search({ query: '', facets: 'tags', facet_limit: '100' });
    expect(body.facets.tags).toEqual(all.body.facets.tags.slice(0, 2));
    const counts = all.body.facets.tags.map(([, n]: [string, number]) => n);
    expect(counts).toEqual([...counts].sort((a: number, b: number) => b - a));
    // The default limit is 10.
    expect((await search({ query: '', facets: 'tags' })).body.facets.tags.length).toBe(
      Math.min(10, counts.length),
    );
  });

  it('leaves the answer as the contract has it without facets', async () => {
    const plain = await search({ query: 'drum' });
    expect(Object.keys(plain.body)).toEqual(['count', 'next', 'previous', 'results']);
    const faceted = await search({ query: 'drum', facets: 'license' });
    expect(Object.keys(faceted.body)).toEqual(['count', 'next', 'previous', 'results', 'facets']);
    expect({ ...faceted.body, facets: undefined, next: null, previous: null }).toEqual({
      ...plain.body,
      facets: undefined,
      next: null,
      previous: null,
    });
  });

  it('refuses unknown facets, bad limits and facets on a similarity search or a cursor walk with a 400 that says why', async () => {
    const unknown = await search({ query: 'drum', facets: 'tags,colour' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail).toMatch(/facets.*unknown facet "colour".*tags, license, type, category/);
    expect((await search({ query: 'drum', facets: '' })).status).toBe(400);
    for (const limit of ['0', '101', 'ten', '-1']) {
      const bad = await search({ query: 'drum', facets: 'tags', facet_limit: limit });
      expect(bad.status, limit).toBe(400);
      expect(bad.body.detail).toMatch(/facet_limit.*1 to 100/);
    }
    const similar = await search({ similar_to: String(s.seeded.ids.bd_808), facets: 'tags' });
    expect(similar.status).toBe(400);
    expect(similar.body.detail).toMatch(/similar_to/);
    const walk = await search({ query: 'drum', facets: 'tags', cursor: '*' });
    expect(walk.status).toBe(400);
    expect(walk.body.detail).toMatch(/cursor/);
  });

  it('describes facets and facet_limit in the OpenAPI document', async () => {
    const doc = (await (await fetch(`${s.origin}/apiv2/openapi.json`)).json()) as Json;
    const params = doc.paths['/apiv2/search/text/'].get.parameters.map((p: Json) => p.name);
    expect(params).toEqual(expect.arrayContaining(['facets', 'facet_limit']));
  });
});
