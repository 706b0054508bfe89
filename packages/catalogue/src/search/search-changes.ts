import { type Kysely, sql } from 'kysely';

/** The sounds whose search document changed since a snapshot, and the snapshot of this read. */
export interface SearchChanges {
  readonly ids: number[];
  /** `pg_current_snapshot()` of the read: the next read starts from it. */
  readonly snapshot: string;
}

/**
 * The sounds whose search document (or bpm) was changed by a transaction `since` did not see
 * (committed after it was taken, or running then), read with one statement whose own snapshot is
 * returned for the next read (migration `*-search-changes`). A sound listed may have changed again
 * since: its document is read afresh, so listing it twice is harmless.
 */
export async function readSearchChanges(db: Kysely<any>, since: string): Promise<SearchChanges> {
  const { rows } = await sql<{ snapshot: string; ids: number[] }>`
    select pg_current_snapshot()::text as snapshot,
      array(select c.sound_id from search_changes c
        where c.xid >= pg_snapshot_xmin(${since}::pg_snapshot)
          and not pg_visible_in_snapshot(c.xid, ${since}::pg_snapshot)) as ids`.execute(db);
  return { ids: rows[0].ids, snapshot: rows[0].snapshot };
}
