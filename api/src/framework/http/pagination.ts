import type { PageRequest } from '@earshot/catalogue';
import { EarshotError } from '@earshot/common';
import { z } from 'zod';
import { MAX_ID } from './params.ts';

export const DEFAULT_PAGE_SIZE = 15;
export const MAX_PAGE_SIZE = 150;

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

export function readPageQuery(raw: { page?: string; page_size?: string }, style: PagingStyle): PageQuery {
  const pageSize = readPageSize(raw.page_size, style);
  if (style === 'list' && raw.page === 'last') return { page: 'last', pageSize, style };
  let page = 1;
  if (raw.page !== undefined && raw.page !== '') {
    const n = parseInteger(raw.page);
    if (n === undefined) {
      if (style === 'list') throw new PageNotFound('Invalid page.');
    } else {
      page = n;
    }
  }
  if (page < 1) throw new PageNotFound(style === 'list' ? 'Invalid page.' : 'Not found');
  // No list holds more rows than there are ids: a page starting beyond them is past the end of any
  // list, answered before a statement is built with an offset the database cannot take.
  if ((page - 1) * pageSize > MAX_ID)
    throw new PageNotFound(style === 'list' ? 'Invalid page.' : 'Not found');
  return { page, pageSize, style };
}

function readPageSize(raw: string | undefined, style: PagingStyle): number {
  const n = raw === undefined ? undefined : parseInteger(raw);
  if (n === undefined) return DEFAULT_PAGE_SIZE;
  if (n < 1) {
    if (style === 'search') throw new PageNotFound('Not found');
    return DEFAULT_PAGE_SIZE;
  }
  return Math.min(n, MAX_PAGE_SIZE);
}

function parseInteger(text: string): number | undefined {
  return /^\s*[+-]?\d+\s*$/.test(text) ? Number.parseInt(text, 10) : undefined;
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

export interface LinkBase {
  origin: string;
  path: string;
  /** The request's query, echoed in links with only `page` replaced. */
  query: Record<string, string>;
}

/** An absolute link to another page of the same request. Page 1 drops `page` altogether. */
export function pageLink(base: LinkBase, page: number): string {
  const query = { ...base.query };
  delete query.page;
  const entries = Object.entries(query);
  if (page !== 1) entries.push(['page', String(page)]);
  return `${base.origin}${base.path}${encodeQuery(entries)}`;
}

export function encodeQuery(entries: Array<[string, string]>): string {
  if (entries.length === 0) return '';
  return `?${entries.map(([k, v]) => `${encodePart(k)}=${encodePart(v)}`).join('&')}`;
}

/** Keeps `,` `:` `[` `]` readable in links, as upstream does; all are legal in a query. */
function encodePart(text: string): string {
  return encodeURIComponent(text)
    .replace(/%2C/gi, ',')
    .replace(/%3A/gi, ':')
    .replace(/%5B/gi, '[')
    .replace(/%5D/gi, ']');
}

/** The contract's page of a list: the catalogue's `Page` with links to its neighbours. */
export interface PageEnvelope<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

export function pageEnvelope<T>(
  base: LinkBase,
  page: number,
  pageSize: number,
  count: number,
  results: T[],
): PageEnvelope<T> {
  const pages = Math.ceil(count / pageSize);
  return {
    count,
    next: page < pages ? pageLink(base, page + 1) : null,
    previous: page > 1 && count > 0 ? pageLink(base, Math.min(page - 1, pages)) : null,
    results,
  };
}

/** The envelope's schema around an item schema, for route definitions and the OpenAPI document. */
export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({
    count: z.number().int().describe('total number of items'),
    next: z.string().nullable().describe('absolute link to the next page, null on the last'),
    previous: z.string().nullable().describe('absolute link to the previous page, null on the first'),
    results: z.array(item),
  });
}
