import { testService } from '@earshot/common/testing';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { testBackends, useRepositoryCatalogue } from '../testing/index.ts';
import {
  decodeWalkCursor,
  encodeWalkCursor,
  LIST_WALK_CHUNK,
  pruneListWalks,
  readListWalk,
  startListWalk,
} from './list-walks.ts';
import { decodeChangeCursor, encodeChangeCursor } from './sound-changes.ts';

const postgresUrl = await testService('postgres');
const LIMITS = { idleSeconds: 3600, maxStoredIds: 10_000 };

describe.each(testBackends(postgresUrl))('list walks on %s', (backend) => {
  const { db } = useRepositoryCatalogue(backend, postgresUrl);

  it('reads any stretch of a frozen list, across chunk boundaries, with its details', async () => {
    const ids = Array.from({ length: 2 * LIST_WALK_CHUNK + 17 }, (_, i) => 5000 - i);
    const details = ids.map((id) => ({ score: id / 7 }));
    const walk = await startListWalk(db(), 'search:a', { ids, details }, LIMITS);
    for (const [offset, limit] of [
      [0, 15],
      [LIST_WALK_CHUNK - 5, 150],
      [2 * LIST_WALK_CHUNK, 150],
      [ids.length, 15],
    ]) {
      const slice = await readListWalk(db(), walk, 'search:a', { offset, limit }, LIMITS);
      expect(slice).toEqual({
        total: ids.length,
        ids: ids.slice(offset, offset + limit),
        details: details.slice(offset, offset + limit),
      });
    }
    // Without details, none are stored or read.
    const plain = await startListWalk(db(), 'user:1', { ids: [3, 1, 2] }, LIMITS);
    expect(await readListWalk(db(), plain, 'user:1', { offset: 1, limit: 5 }, LIMITS)).toEqual({
      total: 3,
      ids: [1, 2],
    });
  });

  it('refuses another list, an unknown walk and an expired one', async () => {
    const walk = await startListWalk(db(), 'pack:9', { ids: [1, 2, 3] }, LIMITS);
    expect(await readListWalk(db(), walk, 'pack:8', { offset: 0, limit: 2 }, LIMITS)).toBe('other-list');
    expect(await readListWalk(db(), '999999999', 'pack:9', { offset: 0, limit: 2 }, LIMITS)).toBe('unknown');
    await sql`update list_walks set expires_at = now() - interval '1 second' where id = ${walk}::bigint`.execute(
      db(),
    );
    expect(await readListWalk(db(), walk, 'pack:9', { offset: 0, limit: 2 }, LIMITS)).toBe('unknown');
    // The next walk to start prunes it, chunks and all.
    await startListWalk(db(), 'pack:9', { ids: [1] }, LIMITS);
    const left = await sql<{
      n: number;
    }>`select count(*)::int as n from list_walk_chunks where walk_id = ${walk}::bigint`.execute(db());
    expect(left.rows[0].n).toBe(0);
  });

  it('keeps at most maxStoredIds ids, dropping the least recently read walks first', async () => {
    const limits = { idleSeconds: 3600, maxStoredIds: 2500 };
    await sql`delete from list_walks`.execute(db());
    const list = { ids: Array.from({ length: 1000 }, (_, i) => i + 1) };
    const a = await startListWalk(db(), 'k', list, limits);
    const b = await startListWalk(db(), 'k', list, limits);
    // Reading `a` when its expiry is near keeps it longer than `b`.
    await sql`update list_walks set expires_at = now() + interval '1 minute' where id = ${a}::bigint`.execute(
      db(),
    );
    await readListWalk(db(), a, 'k', { offset: 0, limit: 1 }, limits);
    await startListWalk(db(), 'k', list, limits);
    expect(await readListWalk(db(), b, 'k', { offset: 0, limit: 1 }, limits)).toBe('unknown');
    expect(await readListWalk(db(), a, 'k', { offset: 0, limit: 1 }, limits)).toMatchObject({ ids: [1] });
  });

  it('prunes the expired walks, chunks and all, in batches, and keeps the live ones', async () => {
    await sql`delete from list_walks`.execute(db());
    const list = { ids: Array.from({ length: LIST_WALK_CHUNK + 1 }, (_, i) => i + 1) };
    const expired = [];
    for (let i = 0; i < 5; i++) expired.push(await startListWalk(db(), `old:${i}`, list, LIMITS));
    const live = await startListWalk(db(), 'live', list, LIMITS);
    await sql`update list_walks set expires_at = now() - interval '1 second' where id <> ${live}::bigint`.execute(
      db(),
    );
    expect(await pruneListWalks(db(), 2)).toEqual({ walks: 5, ids: 5 * list.ids.length });
    const { rows } = await sql<{
      walk_id: string;
    }>`select distinct walk_id::text from list_walk_chunks`.execute(db());
    expect(rows.map((r) => r.walk_id)).toEqual([live]);
    expect(await readListWalk(db(), live, 'live', { offset: LIST_WALK_CHUNK, limit: 5 }, LIMITS)).toEqual({
      total: list.ids.length,
      ids: [LIST_WALK_CHUNK + 1],
    });
    expect(await pruneListWalks(db())).toEqual({ walks: 0, ids: 0 });
  });

  it('encodes positions as opaque cursors of their own kind, apart from the changes feed', () => {
    const cursor = encodeWalkCursor({ walkId: '42', offset: 150 });
    expect(decodeWalkCursor(cursor)).toEqual({ walkId: '42', offset: 150 });
    const feed = encodeChangeCursor({ seq: '42', soundId: 150 });
    expect(() => decodeWalkCursor(feed)).toThrow('cursor: not a cursor this server handed out');
    expect(() => decodeChangeCursor(cursor)).toThrow('since: not a cursor this server handed out');
    for (const bad of ['', '*', 'nonsense', encodeWalkCursor({ walkId: '1', offset: 2 ** 31 })])
      expect(() => decodeWalkCursor(bad)).toThrow(/^cursor: /);
  });
});
