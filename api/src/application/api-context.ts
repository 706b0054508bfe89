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
  /**
   * Most sounds a walk this request starts holds (text search; default the list's own cap): the web
   * search page's walks hold the first few thousand, as many as a person pages through.
   */
  walkMax?: number;
  reads?: SoundReads;
}
