import { START_WALK } from '../../application/list-walks.ts';
import type { Page } from '../../application/records.ts';

/**
 * Paging on the pages that list sounds (search, a user's, a pack's, bookmarks). Their first view
 * starts a cursor walk of the list (docs/api.md "Cursor paging") and their "next" and "previous"
 * links carry its cursors, so a person paging while sounds are added, edited or removed sees no
 * sound twice and misses none. `page=N`, the address these pages had before, still shows page N of
 * the list as it is now, with links by number.
 */

/** Where in a list a page is: a cursor of a walk (START_WALK: a new one), or a page number. */
export type ListPosition = { cursor: string } | { page: number };

/** A cursor is a few dozen characters; anything longer is no cursor (the use case says so). */
const MAX_CURSOR = 200;
const MAX_PAGE = 10_000;

/** The position a page's query asks for; none: the first page of a new walk. */
export function readListPosition(query: Record<string, unknown>): ListPosition {
  const { cursor, page } = query;
  if (typeof cursor === 'string' && cursor !== '') return { cursor: cursor.slice(0, MAX_CURSOR) };
  const n = typeof page === 'string' && /^[1-9]\d{0,5}$/.test(page) ? Number(page) : 1;
  return n > 1 ? { page: Math.min(n, MAX_PAGE) } : { cursor: START_WALK };
}

/** What the page's pager shows: where the page is, and links to its neighbours. */
export interface Pager {
  page: number;
  last: number;
  previous?: string;
  next?: string;
}

/**
 * The pager of a page of `pageSize` sounds: by cursor on a page of a walk (its number is where it
 * starts in the walk), by number on a `page=N` view. `href` makes the link to a position.
 */
export function pagerOf(found: Page<unknown>, pageSize: number, href: (to: ListPosition) => string): Pager {
  const last = Math.max(1, Math.ceil(found.count / pageSize));
  if (found.cursors) {
    const { previous, next } = found.cursors;
    return {
      page: Math.floor((found.walkOffset ?? 0) / pageSize) + 1,
      last,
      previous: previous === null ? undefined : href({ cursor: previous }),
      next: next === null ? undefined : href({ cursor: next }),
    };
  }
  const { page } = found;
  return {
    page,
    last,
    previous: page > 1 ? href({ page: page - 1 }) : undefined,
    next: page < last ? href({ page: page + 1 }) : undefined,
  };
}

/** `path` with the position's query: none for the first page (which starts a walk). */
export function positionHref(path: string, to: ListPosition): string {
  if ('cursor' in to)
    return to.cursor === START_WALK ? path : `${path}?cursor=${encodeURIComponent(to.cursor)}`;
  return to.page > 1 ? `${path}?page=${to.page}` : path;
}

/** What a page says when its cursor cannot be continued (kept too long unused, or altered). */
export const REFUSED_CURSOR =
  'These pages are no longer kept: a walk through a list is kept for a while after its latest page, and this one is older, or its address was changed. Start again from the first page.';
