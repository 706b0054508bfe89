import type { PageRequest } from '@earshot/catalogue';
import { EarshotError } from '@earshot/common';

/**
 * The contract's page rules that decide what a use case answers (which window to read, when a page
 * is past the end). Links to other pages are made where the answer's JSON is, never here.
 */

/** A page past the end, a page below 1 and the like: 404 as the original service answers. */
export class PageNotFound extends EarshotError {
  constructor(message: string) {
    super(message, 'page_not_found', 404);
  }
}

/**
 * The two page rules the original service has, kept apart because clients see the difference:
 * `search` (search, similar, content and combined search) turns a non-integer page into 1 and
 * answers `Not found`; `list` (users' sounds, packs, comments…) accepts `page=last` and answers
 * `Invalid page.`.
 */
export type PagingStyle = 'search' | 'list';

/**
 * The page a request asks for in the contract's terms (`page`, `page_size`). Reads take the
 * catalogue's `PageRequest` (`{ limit, offset }`): `pageWindow` is where one becomes the other.
 */
export interface PageQuery {
  /** 1-based page number; `last` for list paging before the count is known. */
  page: number | 'last';
  pageSize: number;
  style: PagingStyle;
}

/** The catalogue's `{ limit, offset }` of a page number: the one place a page becomes an offset. */
export function pageWindow(page: number, pageSize: number): PageRequest {
  return { limit: pageSize, offset: (page - 1) * pageSize };
}

/** Resolves `last` and checks the page lies within the results (any page of an empty list is fine). */
export function resolvePage(req: PageQuery, count: number): { page: number; offset: number } {
  const pages = Math.max(1, Math.ceil(count / req.pageSize));
  const page = req.page === 'last' ? pages : req.page;
  if (page > pages && count > 0) {
    throw new PageNotFound(req.style === 'list' ? 'Invalid page.' : 'Not found');
  }
  if (page > pages && req.style === 'list') throw new PageNotFound('Invalid page.');
  return { page, offset: pageWindow(page, req.pageSize).offset };
}
