import { bookmarkSound, decodeWalkCursor, deleteSound, editSound } from '@earshot/catalogue';
import {
  createTestDatabase,
  insertSeedPack,
  insertSeedSound,
  insertSeedUser,
} from '@earshot/catalogue/testing';
import { testService } from '@earshot/common/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';

/**
 * Cursor paging (docs/api.md "Cursor paging") on the real server and both databases: a walk
 * started with `cursor=*` and followed by its `next` links lists each sound that is public for the
 * whole walk exactly once, in every sort, while sounds are added, removed and edited between its
 * pages (edits that move a sound's sort key across the reader's position included); `page`
 * paging under the same writes does not, which is what the walk is for. Version 1's lists (`/api/`)
 * walk the same way through the same walks, beside their `p`.
 */

const postgresUrl = await testService('postgres');
const backends = postgresUrl ? ['pglite', 'postgres'] : ['pglite'];

type Json = Record<string, any>;

const SORTS = [
  'score',
  'downloads_desc',
  'downloads_asc',
  'rating_desc',
  'rating_asc',
  'created_desc',
  'created_asc',
  'duration_desc',
  'duration_asc',
] as const;
type Sort = (typeof SORTS)[number];

const POOL = 24;
const PAGE_SIZE = 4;
/** How long the server keeps a walk (LIST_WALK_IDLE_MINUTES). */
const IDLE_MINUTES = 7;

/** A page of either version's list: its sounds, its count and its `next` link. */
function listPage(body: Json): { items: Json[]; count: number; next: string | null } {
  if ('sounds' in body) return { items: body.sounds, count: body.num_results, next: body.next ?? null };
  return { items: body.results, count: body.count, next: body.next };
}

const relative = (link: string) => new URL(link).pathname + new URL(link).search;

describe.each(backends)('cursor paging on %s', (backend) => {
  let s: TestServer;
  let database: { url: string; drop(): Promise<void> } | undefined;
  let walkerId: number;
  let n = 0;

  beforeAll(async () => {
    database = backend === 'postgres' ? await createTestDatabase(postgresUrl as string) : undefined;
    s = await startTestServer({
      LIST_WALK_IDLE_MINUTES: String(IDLE_MINUTES),
      ...(database ? { DATABASE_URL: database.url } : {}),
    });
    walkerId = await insertSeedUser(s.catalogue.db, {
      username: 'walker',
      password_hash: null,
      avatar_path: null,
    });
  }, 180_000);
  afterAll(async () => {
    await s?.stop();
    await database?.drop();
  });

  async function get(path: string): Promise<{ status: number; body: Json }> {
    const res = await fetch(`${s.origin}${path}`, { headers: { Authorization: `Token ${s.seeded.apiKey}` } });
    return { status: res.status, body: (await res.json()) as Json };
  }

  /** A public sound of `walker` tagged `word`, its sort keys spread by `i`. */
  async function addSound(
    word: string,
    i: number,
    packId: number | null = null,
    geotag: [number, number] | null = null,
  ): Promise<number> {
    n++;
    return insertSeedSound(s.catalogue.db, {
      user_id: walkerId,
      pack_id: packId,
      name: `${word} sound ${n}`,
      // Relevance differs from sound to sound: the word repeated (i % 4) + 1 times.
      description: Array.from({ length: (i % 4) + 1 }, () => word).join(' '),
      tags: [word],
      license: 'Creative Commons 0',
      category: null,
      subcategory: null,
      category_code: null,
      geotag_lat: geotag?.[0] ?? null,
      geotag_lon: geotag?.[1] ?? null,
      original_filename: `${word}-${n}.wav`,
      original_path: '',
      duration: 1 + ((i * 7) % 13) / 2,
      num_downloads: (i * 5) % 11,
      avg_rating: (i % 5) + 0.5,
      num_ratings: 3,
      created: new Date(Date.UTC(2026, 0, 1) + n * 60_000),
      moderation_state: 'ok',
      processing_state: 'Processed',
    });
  }

  const db = () => s.catalogue.db;
  const setCounters = (id: number, set: { num_downloads?: number; avg_rating?: number }) =>
    db().updateTable('sounds').set(set).where('id', '=', id).execute();

  /**
   * Edits that bring a sound to the front of `sort` or send it to the back (no edit moves a sound
   * in an order of creation or duration: those keys never change).
   */
  function movers(sort: Sort, word: string) {
    const noop = async () => {};
    switch (sort) {
      case 'score':
        return {
          front: (id: number) =>
            editSound(db(), id, { name: `${word} ${word} ${word}`, description: `${word} `.repeat(8) }),
          back: (id: number) => editSound(db(), id, { name: 'plain', description: 'plain' }),
        };
      case 'downloads_desc':
      case 'downloads_asc': {
        const [high, low] = sort === 'downloads_desc' ? [1000, 0] : [0, 1000];
        return {
          front: (id: number) => setCounters(id, { num_downloads: high }),
          back: (id: number) => setCounters(id, { num_downloads: low }),
        };
      }
      case 'rating_desc':
      case 'rating_asc': {
        const [high, low] = sort === 'rating_desc' ? [5, 0] : [0, 5];
        return {
          front: (id: number) => setCounters(id, { avg_rating: high }),
          back: (id: number) => setCounters(id, { avg_rating: low }),
        };
      }
      default:
        return { front: noop, back: noop };
    }
  }

  /**
   * Reads a list page by page from `first` (following `next`), and between pages: adds a sound to
   * the list, removes one not read yet (deleted or hidden by moderation, in turn), brings one not
   * read yet to the front and sends one already read to the back. Returns the ids in the order
   * read, the counts answered and the sounds removed. Either version's lists.
   */
  async function walkWhileWriting(
    first: string,
    word: string,
    pool: number[],
    move: { front: (id: number) => Promise<unknown>; back: (id: number) => Promise<unknown> },
    packId: number | null = null,
  ) {
    const read: number[] = [];
    const counts: number[] = [];
    const removed = new Set<number>();
    let url: string | null = first;
    for (let page = 0; url; page++) {
      const res = await get(url);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const answer = listPage(res.body);
      read.push(...answer.items.map((r: Json) => r.id));
      counts.push(answer.count);
      url = answer.next && relative(answer.next);
      const unread = pool.filter((id) => !read.includes(id) && !removed.has(id));
      await addSound(word, page, packId);
      if (unread.length > 2) {
        const gone = unread[unread.length - 1];
        removed.add(gone);
        if (page % 2) await deleteSound(db(), gone);
        else
          await db()
            .updateTable('sounds')
            .set({ moderation_state: 'pending_moderation' })
            .where('id', '=', gone)
            .execute();
        await move.front(unread[unread.length - 2]);
      }
      if (read.length) await move.back(read[0]);
    }
    return { read, counts, removed };
  }

  it.each(SORTS)(
    'walks a search sorted by %s: each sound public for the whole walk exactly once',
    async (sort) => {
      const word = `walk${sort.replace(/_/g, '')}`;
      const pool: number[] = [];
      for (let i = 0; i < POOL; i++) pool.push(await addSound(word, i));
      const query = `query=${word}&sort=${sort}&fields=id,name`;
      const { read, counts, removed } = await walkWhileWriting(
        `/apiv2/search/text/?${query}&page_size=${PAGE_SIZE}&cursor=*`,
        word,
        pool,
        movers(sort, word),
      );
      const expected = pool.filter((id) => !removed.has(id));
      expect(new Set(read).size, 'no sound twice').toBe(read.length);
      expect([...read].sort((a, b) => a - b)).toEqual(expected.sort((a, b) => a - b));
      expect(removed.size).toBeGreaterThan(0);
      // The count is the walk's length on every page.
      expect(new Set(counts)).toEqual(new Set([POOL]));
    },
  );

  it('keeps the order of the search as it was when the walk began, with scores and links', async () => {
    const word = 'walkorder';
    for (let i = 0; i < 9; i++) await addSound(word, i);
    const paged = await get(
      `/apiv2/search/text/?query=${word}&sort=downloads_desc&fields=id,score&page_size=150`,
    );
    const first = await get(
      `/apiv2/search/text/?query=${word}&sort=downloads_desc&fields=id,score&page_size=4&cursor=*`,
    );
    expect(first.body).toMatchObject({ count: 9, previous: null, results: paged.body.results.slice(0, 4) });
    const next = new URL(first.body.next);
    expect(next.pathname).toBe('/apiv2/search/text/');
    const cursor = next.searchParams.get('cursor') as string;
    expect(cursor).not.toBe('*');
    expect(Object.fromEntries(next.searchParams)).toEqual({
      query: word,
      sort: 'downloads_desc',
      fields: 'id,score',
      page_size: '4',
      cursor,
    });
    const second = await get(next.pathname + next.search);
    expect(second.body.results).toEqual(paged.body.results.slice(4, 8));
    // `previous` leads back to the first page; the pages' size may change along the walk.
    const back = await get(new URL(second.body.previous).pathname + new URL(second.body.previous).search);
    expect(back.body.results).toEqual(paged.body.results.slice(0, 4));
    const rest = await get(
      `${next.pathname}?query=${word}&sort=downloads_desc&fields=id&page_size=10&cursor=${cursor}`,
    );
    expect(rest.body).toMatchObject({ count: 9, next: null });
    expect(rest.body.results.map((r: Json) => r.id)).toEqual(
      paged.body.results.slice(4).map((r: Json) => r.id),
    );
  });

  it("walks a user's and a pack's sounds while sounds are added and removed", async () => {
    const packId = await insertSeedPack(db(), { user_id: walkerId, name: 'Walk pack', created: new Date() });
    const pool: number[] = [];
    for (let i = 0; i < 11; i++) pool.push(await addSound('walkpack', i, packId));
    const noop = { front: async () => {}, back: async () => {} };
    const pack = await walkWhileWriting(
      `/apiv2/packs/${packId}/sounds/?fields=id&page_size=3&cursor=*`,
      'walkpack',
      pool,
      noop,
      packId,
    );
    expect(new Set(pack.read).size).toBe(pack.read.length);
    expect([...pack.read].sort((a, b) => a - b)).toEqual(
      pool.filter((id) => !pack.removed.has(id)).sort((a, b) => a - b),
    );

    // Every sound of the user before the walk, by `page` while nothing changes.
    const everyone: number[] = [];
    for (let page = 1; ; page++) {
      const res = await get(`/apiv2/users/walker/sounds/?fields=id&page_size=150&page=${page}`);
      everyone.push(...res.body.results.map((r: Json) => r.id));
      if (!res.body.next) break;
    }
    const size = Math.ceil(everyone.length / 5);
    const user = await walkWhileWriting(
      `/apiv2/users/walker/sounds/?fields=id&page_size=${size}&cursor=*`,
      'walkuser',
      everyone,
      noop,
    );
    expect(new Set(user.read).size).toBe(user.read.length);
    expect(user.read).toEqual(everyone.filter((id) => !user.removed.has(id)));
  });

  it('walks similar sounds, content and combined search in the order their pages show', async () => {
    const { bd_808 } = s.seeded.ids;
    const lists = [
      `/apiv2/sounds/${bd_808}/similar/?fields=id`,
      '/apiv2/search/content/?target=lowlevel.spectral_centroid.mean:200&fields=id',
      '/apiv2/search/text/?query=drum&similar_to=' + bd_808 + '&fields=id',
    ];
    for (const list of lists) {
      const paged = await get(`${list}&page_size=150`);
      expect(paged.status, list).toBe(200);
      const read: number[] = [];
      let url: string | null = `${list}&page_size=2&cursor=*`;
      while (url) {
        const res = await get(url);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.body.count).toBe(paged.body.count);
        read.push(...res.body.results.map((r: Json) => r.id));
        url = res.body.next && new URL(res.body.next).pathname + new URL(res.body.next).search;
      }
      expect(read, list).toEqual(paged.body.results.map((r: Json) => r.id));
    }
    // Combined search has no count: `more` carries the cursor.
    const combined =
      '/apiv2/search/combined/?target=lowlevel.spectral_centroid.mean:200&filter=tag:drum&fields=id';
    const all = await get(`${combined}&page_size=150`);
    const first = await get(`${combined}&page_size=2&cursor=*`);
    expect(first.body.results).toEqual(all.body.results.slice(0, 2));
    expect(new URL(first.body.more).searchParams.get('cursor')).toMatch(/^[\w-]+$/);
  });

  it('answers a bad, foreign or expired cursor, and a cursor with page, with a 400 saying what is wrong', async () => {
    for (const bad of ['nonsense', '', 'MTIuMw'])
      expect(await get(`/apiv2/search/text/?query=kick&cursor=${bad}`)).toEqual({
        status: 400,
        body: { detail: 'cursor: not a cursor this server handed out' },
      });
    expect(await get('/apiv2/users/alice/sounds/?cursor=*&page=2')).toEqual({
      status: 400,
      body: { detail: 'cursor: a walk goes by cursor alone; leave out page' },
    });
    const first = await get('/apiv2/search/text/?query=&fields=id&page_size=2&cursor=*');
    const cursor = new URL(first.body.next).searchParams.get('cursor') as string;
    expect(await get(`/apiv2/search/text/?query=kick&fields=id&page_size=2&cursor=${cursor}`)).toEqual({
      status: 400,
      body: {
        detail:
          'cursor: it belongs to a walk of another list; keep the parameters of the request that started it',
      },
    });
    expect(await get(`/apiv2/users/alice/sounds/?cursor=${cursor}`)).toMatchObject({ status: 400 });
    await sql`update list_walks set expires_at = now() - interval '1 second'`.execute(db());
    expect(await get(`/apiv2/search/text/?query=&fields=id&page_size=2&cursor=${cursor}`)).toEqual({
      status: 400,
      body: { detail: 'cursor: the walk has expired or is unknown; start a new one with cursor=*' },
    });
  });

  it('gives `page` paging what it always gave: under the same writes it reads a sound twice or skips one', async () => {
    const word = 'walkpaged';
    const pool: number[] = [];
    for (let i = 0; i < POOL; i++) pool.push(await addSound(word, i));
    const query = `query=${word}&sort=downloads_desc&fields=id&page_size=${PAGE_SIZE}`;
    const { read, removed } = await walkWhileWriting(
      `/apiv2/search/text/?${query}`,
      word,
      pool,
      movers('downloads_desc', word),
    );
    const expected = pool.filter((id) => !removed.has(id));
    const twice = read.length !== new Set(read).size;
    const skipped = expected.some((id) => !read.includes(id));
    expect(twice || skipped).toBe(true);
  });

  it.each(['score', 'downloads_desc', 'rating_asc', 'created_desc'] as const)(
    'walks a version 1 search sorted by %s: each sound public for the whole walk exactly once',
    async (sort) => {
      const word = `vonewalk${sort.replace(/_/g, '')}`;
      const pool: number[] = [];
      for (let i = 0; i < POOL; i++) pool.push(await addSound(word, i));
      const { read, counts, removed } = await walkWhileWriting(
        `/api/sounds/search/?q=${word}&s=${sort}&fields=id&sounds_per_page=${PAGE_SIZE}&cursor=*`,
        word,
        pool,
        movers(sort, word),
      );
      expect(new Set(read).size, 'no sound twice').toBe(read.length);
      expect([...read].sort((a, b) => a - b)).toEqual(
        pool.filter((id) => !removed.has(id)).sort((a, b) => a - b),
      );
      expect(removed.size).toBeGreaterThan(0);
      expect(new Set(counts)).toEqual(new Set([POOL]));
    },
  );

  it("walks version 1's pack and bookmark category sounds while writing, with the bookmarks' names as they are", async () => {
    const packId = await insertSeedPack(db(), {
      user_id: walkerId,
      name: 'Walk pack v1',
      created: new Date(),
    });
    const pool: number[] = [];
    for (let i = 0; i < 10; i++) pool.push(await addSound('vonepack', i, packId));
    const noop = { front: async () => {}, back: async () => {} };
    const pack = await walkWhileWriting(
      `/api/packs/${packId}/sounds/?fields=id&sounds_per_page=3&cursor=*`,
      'vonepack',
      pool,
      noop,
      packId,
    );
    expect(new Set(pack.read).size).toBe(pack.read.length);
    expect([...pack.read].sort((a, b) => a - b)).toEqual(
      pool.filter((id) => !pack.removed.has(id)).sort((a, b) => a - b),
    );

    const marked: number[] = [];
    for (let i = 0; i < 7; i++) {
      const id = await addSound('vonemark', i);
      await bookmarkSound(db(), { userId: walkerId, soundId: id, name: `mark ${i}`, category: 'Walked' });
      marked.push(id);
    }
    const category = (await get('/api/people/walker/bookmark_categories/')).body.categories.find(
      (c: Json) => c.name === 'Walked',
    );
    const path = `/api/people/walker/bookmark_categories/${category.id}/sounds/`;
    const byP = await get(`${path}?fields=id&sounds_per_page=100`);
    const first = await get(`${path}?fields=id&sounds_per_page=3&cursor=*`);
    expect(first.body).toMatchObject({ num_results: 7, num_pages: 3, sounds: byP.body.sounds.slice(0, 3) });
    // A bookmark renamed during the walk shows its new name: names are read with each page.
    const later = byP.body.sounds[4].id as number;
    await bookmarkSound(db(), { userId: walkerId, soundId: later, name: 'renamed', category: 'Walked' });
    const second = await get(relative(first.body.next));
    expect(second.body.sounds).toEqual(
      byP.body.sounds.slice(3, 6).map((sound: Json) => ({
        ...sound,
        bookmark_name: sound.id === later ? 'renamed' : sound.bookmark_name,
      })),
    );
  });

  it('walks version 1 content search, geotag search and similar sounds in the order `p` pages them', async () => {
    for (let i = 0; i < 5; i++) await addSound('vonegeo', i, null, [10 + i, 20 + i]);
    const { bd_808 } = s.seeded.ids;
    const lists = [
      '/api/sounds/content_search/?t=.lowlevel.spectral_centroid.mean:200&max_results=7&fields=id',
      '/api/sounds/geotag/?min_lat=5&max_lat=50&fields=id',
      `/api/sounds/${bd_808}/similar/?num_results=6&fields=id`,
    ];
    for (const list of lists) {
      const paged = await get(`${list}&sounds_per_page=100`);
      expect(paged.status, list).toBe(200);
      expect(paged.body.sounds.length, list).toBeGreaterThan(2);
      const read: Json[] = [];
      let url: string | null = `${list}&sounds_per_page=2&cursor=*`;
      while (url) {
        const res = await get(url);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.body.num_results, list).toBe(paged.body.num_results);
        read.push(...res.body.sounds);
        url = res.body.next ? relative(res.body.next) : null;
      }
      // The extras (distance, geotag) come with each sound as `p` shows them.
      expect(read, list).toEqual(paged.body.sounds);
    }
  });

  it('links version 1 walk pages by cursor and answers a bad, foreign or mixed cursor with a version 1 400', async () => {
    const word = 'vonelinks';
    for (let i = 0; i < 9; i++) await addSound(word, i);
    const path = `/api/sounds/search/?q=${word}&s=downloads_desc&fields=id&sounds_per_page=4`;
    const first = await get(`${path}&cursor=*`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ num_results: 9, num_pages: 3 });
    expect(first.body).not.toHaveProperty('previous');
    const next = new URL(first.body.next);
    const cursor = next.searchParams.get('cursor') as string;
    expect(Object.fromEntries(next.searchParams)).toEqual({
      q: word,
      s: 'downloads_desc',
      fields: 'id',
      sounds_per_page: '4',
      cursor,
    });
    const second = await get(relative(first.body.next));
    const back = await get(relative(second.body.previous));
    expect(back.body.sounds).toEqual(first.body.sounds);
    // `p` pages as it always did: page links, no cursor.
    const byP = await get(`${path}&p=2`);
    expect(byP.body.sounds).toEqual(second.body.sounds);
    expect(new URL(byP.body.next).searchParams.get('p')).toBe('3');
    expect(new URL(byP.body.next).searchParams.has('cursor')).toBe(false);

    const v1Error = (detail: string) => ({
      status: 400,
      body: { detail, error: true, type: 'BadRequest', status_code: 400, explanation: detail },
    });
    expect(await get(`${path}&cursor=*&p=2`)).toEqual(
      v1Error('cursor: a walk goes by cursor alone; leave out p'),
    );
    expect(await get(`${path}&cursor=nonsense`)).toEqual(
      v1Error('cursor: not a cursor this server handed out'),
    );
    expect(await get(`/api/sounds/geotag/?fields=id&cursor=${cursor}`)).toEqual(
      v1Error(
        'cursor: it belongs to a walk of another list; keep the parameters of the request that started it',
      ),
    );
    // A version 2 walk of a user's sounds is the same list as version 1's: either continues it.
    const v2 = await get('/apiv2/users/walker/sounds/?fields=id&page_size=2&cursor=*');
    const v2Second = await get(relative(v2.body.next));
    const v1Second = await get(
      `/api/people/walker/sounds/?fields=id&sounds_per_page=2&cursor=${new URL(v2.body.next).searchParams.get('cursor')}`,
    );
    expect(v1Second.body.sounds.map((r: Json) => r.id)).toEqual(v2Second.body.results.map((r: Json) => r.id));
    expect(v1Second.body.num_results).toBe(v2.body.count);
  });

  it('keeps a walk LIST_WALK_IDLE_MINUTES after its latest page', async () => {
    const first = await get('/api/sounds/search/?q=vonelinks&fields=id&sounds_per_page=2&cursor=*');
    const { walkId } = decodeWalkCursor(new URL(first.body.next).searchParams.get('cursor') as string);
    const { rows } = await sql<{ seconds: number }>`
      select extract(epoch from expires_at - now())::float8 as seconds from list_walks where id = ${walkId}::bigint`.execute(
      db(),
    );
    expect(rows[0].seconds).toBeGreaterThan(IDLE_MINUTES * 60 - 60);
    expect(rows[0].seconds).toBeLessThanOrEqual(IDLE_MINUTES * 60);
  });
});
