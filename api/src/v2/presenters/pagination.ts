import { z } from 'zod';
import { PageNotFound, type PageQuery, type PagingStyle } from '../../application/paging.ts';
import type { Page, WalkCursors } from '../../application/records.ts';
import { MAX_ID } from '../../framework/http/params.ts';

/**
 * The contract's paging on the wire: `page` and `page_size` read from the query string, links to
 * the other pages of a request, and the page envelope. The rules they stand on (windows, pages past
 * the end) are the application's (`application/paging.ts`).
 */

export const DEFAULT_PAGE_SIZE = 15;
export const MAX_PAGE_SIZE = 150;

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

/** An absolute link to another page of a cursor walk: the request's query with `cursor` replaced. */
export function cursorLink(base: LinkBase, cursor: string): string {
  const query = { ...base.query };
  delete query.page;
  delete query.cursor;
  return `${base.origin}${base.path}${encodeQuery([...Object.entries(query), ['cursor', cursor]])}`;
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
  cursors?: WalkCursors,
): PageEnvelope<T> {
  if (cursors) {
    return {
      count,
      next: cursors.next === null ? null : cursorLink(base, cursors.next),
      previous: cursors.previous === null ? null : cursorLink(base, cursors.previous),
      results,
    };
  }
  const pages = Math.ceil(count / pageSize);
  return {
    count,
    next: page < pages ? pageLink(base, page + 1) : null,
    previous: page > 1 && count > 0 ? pageLink(base, Math.min(page - 1, pages)) : null,
    results,
  };
}

/** The envelope of a use case's page, each item presented. */
export function presentPage<T, U>(base: LinkBase, page: Page<T>, present: (item: T) => U): PageEnvelope<U> {
  return pageEnvelope(
    base,
    page.page,
    page.pageSize,
    page.count,
    page.items.map((item) => present(item)),
  );
}

/** The envelope's schema around an item schema, for route definitions and the OpenAPI document. */
export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({
    count: z.number().int().describe('total number of items'),
    next: z
      .string()
      .nullable()
      .describe('absolute link to the next page (with `cursor`: carrying the next cursor), null on the last'),
    previous: z.string().nullable().describe('absolute link to the previous page, null on the first'),
    results: z.array(item),
  });
}
