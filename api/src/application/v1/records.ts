import type { BookmarkCategoryView } from '@earshot/catalogue';
import type { Page, SoundRecord, WalkCursors } from '../records.ts';
import type { V1PageQuery } from './paging.ts';

/** A sound as a version 1 list answers it: what some lists add to the shared sound record. */
export interface V1SoundRecord extends SoundRecord {
  /** Similar sounds: the cosine distance to the queried sound (0 for the sound itself). */
  distance?: number;
  /** A bookmark category's sounds: the bookmark's name (the sound's name when it has none). */
  bookmarkName?: string;
}

/**
 * A version 1 page of sounds. A page past the end is no error in version 1: it has no items.
 * `page`/`pageSize` are the request's `p` and `sounds_per_page`; a page of a cursor walk has the
 * cursors of its neighbours instead (and `count` is the walk's length).
 */
export type V1SoundPageRecord = Page<V1SoundRecord>;

export function v1Page(
  page: V1PageQuery,
  count: number,
  items: V1SoundRecord[],
  cursors?: WalkCursors,
): V1SoundPageRecord {
  return { items, count, page: page.p, pageSize: page.perPage, ...(cursors ? { cursors } : {}) };
}

/** A user's bookmark categories, in the order version 1 lists them, with the user they belong to. */
export interface V1BookmarkCategories {
  username: string;
  categories: BookmarkCategoryView[];
}
