import type { PageQuery } from './paging.ts';
import type { SoundReads } from './records.ts';

/** What a listing use case needs from the request: which page, and what to read of each sound. */
export interface ListRequest {
  page: PageQuery;
  reads?: SoundReads;
}
