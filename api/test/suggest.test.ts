import { createTestDatabase, setModerationState } from '@earshot/catalogue/testing';
import { testService } from '@earshot/common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';

/**
 * Autocomplete (docs/api.md "Beyond the contract", issue 36) on both databases: the tags and names
 * of public sounds completing a prefix, ranked by use, checked against the public sounds the API
 * itself lists; kept current as a sound leaves the public catalogue; bad requests are 400s.
 */

const postgresUrl = await testService('postgres');
const backends = postgresUrl ? ['pglite', 'postgres'] : ['pglite'];

type Json = Record<string, any>;
interface Listed {
  id: number;
  name: string;
  tags: string[];
  num_downloads: number;
}

describe.each(backends)('search suggestions on %s', (backend) => {
  let s: TestServer;
  let database: { url: string; drop(): Promise<void> } | undefined;

  beforeAll(async () => {
    database = backend === 'postgres' ? await createTestDatabase(postgresUrl as string) : undefined;
    s = await startTestServer({ ...(database ? { DATABASE_URL: database.url } : {}) });
  }, 180_000);
  afterAll(async () => {
    await s?.stop();
    await database?.drop();
  });

  async function get(path: string, auth: string | null = `Token ${s.seeded.apiKey}`) {
    const res = await fetch(`${s.origin}${path}`, { headers: auth ? { Authorization: auth } : {} });
    const text = await res.text();
    return { status: res.status, text, body: JSON.parse(text) as Json };
  }

  /** Every public sound, as the search lists them. */
  async function publicSounds(): Promise<Listed[]> {
    const res = await get('/apiv2/search/?fields=id,name,tags,num_downloads&page_size=150');
    expect(res.body.count).toBe(res.body.results.length);
    return res.body.results as Listed[];
  }

  /** What the answer must be, computed from the listed sounds. */
  function expected(sounds: Listed[], q: string, limit = 10) {
    const uses = new Map<string, number>();
    for (const sound of sounds)
      for (const tag of new Set(sound.tags.map((t) => t.toLowerCase())))
        if (tag.startsWith(q)) uses.set(tag, (uses.get(tag) ?? 0) + 1);
    const tags = [...uses]
      .map(([tag, n]) => ({ tag, sounds: n }))
      .sort((a, b) => b.sounds - a.sounds || (a.tag < b.tag ? -1 : 1))
      .slice(0, limit);
    const byName = new Map<string, Listed>();
    for (const sound of [...sounds].sort((a, b) => b.num_downloads - a.num_downloads || a.id - b.id))
      if (sound.name.toLowerCase().startsWith(q) && !byName.has(sound.name.toLowerCase()))
        byName.set(sound.name.toLowerCase(), sound);
    const names = [...byName.values()]
      .slice(0, limit)
      .map((sound) => ({ name: sound.name, num_downloads: sound.num_downloads }));
    return { q, tags, names };
  }

  it('completes tags by the public sounds carrying them and names by downloads', async () => {
    const sounds = await publicSounds();
    for (const q of ['d', 'k', 'ME', 'h', 'e', 'c', 'zz'])
      expect((await get(`/apiv2/search/suggest/?q=${q}`)).body, q).toEqual(expected(sounds, q.toLowerCase()));
    const drum = await get('/apiv2/search/suggest/?q=dr');
    expect(drum.body.tags[0].tag).toBe('drum');
    // The count is the one the tag filter finds.
    const filtered = await get('/apiv2/search/?filter=tag:drum&fields=id');
    expect(drum.body.tags[0].sounds).toBe(filtered.body.count);
    expect(drum.body.tags[0].sounds).toBeGreaterThan(1);
    expect((await get('/apiv2/search/suggest/?q=k&limit=1')).body).toEqual(expected(sounds, 'k', 1));
  });

  it('follows a sound leaving the public catalogue and coming back', async () => {
    const before = await publicSounds();
    const kick = before.find((sound) => sound.tags.includes('kick')) as Listed;
    await setModerationState(s.catalogue.db, kick.id, 'rejected', null);
    const after = before.filter((sound) => sound.id !== kick.id);
    expect((await get('/apiv2/search/suggest/?q=k')).body).toEqual(expected(after, 'k'));
    await setModerationState(s.catalogue.db, kick.id, 'ok', null);
    expect((await get('/apiv2/search/suggest/?q=k')).body).toEqual(expected(before, 'k'));
  });

  it('refuses a missing, empty or unreadable prefix with a 400 saying why', async () => {
    for (const [path, detail] of [
      ['/apiv2/search/suggest/', /q.*required/],
      ['/apiv2/search/suggest/?q=', /q.*required/],
      ['/apiv2/search/suggest/?q=%20%20', /q: required/],
      [`/apiv2/search/suggest/?q=${'a'.repeat(101)}`, /q: at most 100 characters/],
      ['/apiv2/search/suggest/?q=a%01b', /q: must not contain control characters/],
      ['/apiv2/search/suggest/?q=a%00b', /NUL character/],
      ['/apiv2/search/suggest/?q=a&limit=0', /limit: an integer from 1 to 20/],
      ['/apiv2/search/suggest/?q=a&limit=x', /limit/],
    ] as const) {
      const res = await get(path);
      expect(res.status, path).toBe(400);
      expect(res.body.detail, path).toMatch(detail);
    }
    expect((await get('/apiv2/search/suggest/?q=k', null)).status).toBe(401);
    // Whatever the text, the answer is an answer: quotes, wildcards and far code points are letters.
    for (const q of ['%27%3B--', '%25', '_', '%F4%8F%BF%BF', 'ä'])
      expect((await get(`/apiv2/search/suggest/?q=${q}`)).status, q).toBe(200);
  });
});
