import type { PageQuery } from './paging.ts';
import type { SoundReads } from './records.ts';

/** What a listing use case needs from the request: which page, and what to read of each sound. */
export interface ListRequest {
  page: PageQuery;
  /**
   * Cursor paging instead of `page` (sound lists only): `*` starts a walk, a cursor of an earlier
   * answer continues it (list-walks.ts). `page.pageSize` is the size of the page.
   */
  cursor?: string;
  reads?: SoundReads;
}
