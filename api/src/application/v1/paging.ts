import type { PageRequest } from '@earshot/catalogue';
import { ValidationError } from '@earshot/common';

export const V1_PAGE_SIZE = 30;
export const V1_MAX_PAGE_SIZE = 100;

/** A version 1 page: `p` (1-based) and `sounds_per_page`. */
export interface V1PageQuery {
  p: number;
  perPage: number;
}

/** What a version 1 list use case needs from the request. */
export interface V1ListRequest {
  page: V1PageQuery;
  /**
   * Cursor paging instead of `p` (beyond the contract, as in version 2): `*` starts a walk, a
   * cursor of an earlier answer continues it (../list-walks.ts); `page.perPage` sizes the page.
   */
  cursor?: string;
}

/**
 * `p`: a bogus or non-positive page is page 1, as the original. `sounds_per_page`: default 30, at
 * most 100 (larger values are capped); a value that is no positive integer is a 400 (the original
 * answered those with a 500).
 */
export function readV1Page(raw: { p?: string; sounds_per_page?: string }): V1PageQuery {
  let p = 1;
  if (raw.p !== undefined && /^\s*\d{1,15}\s*$/.test(raw.p)) p = Math.max(1, Number.parseInt(raw.p, 10));
  let perPage = V1_PAGE_SIZE;
  if (raw.sounds_per_page !== undefined && raw.sounds_per_page !== '') {
    if (!/^\s*\d{1,15}\s*$/.test(raw.sounds_per_page) || Number.parseInt(raw.sounds_per_page, 10) < 1) {
      throw new ValidationError(
        `Invalid value for parameter 'sounds_per_page': "${raw.sounds_per_page}" is not a positive integer.`,
      );
    }
    perPage = Math.min(V1_MAX_PAGE_SIZE, Number.parseInt(raw.sounds_per_page, 10));
  }
  // No list is longer than the ids a catalogue can hold: beyond that every page is empty.
  return { p: Math.min(p, 2 ** 31), perPage };
}

export function v1Window(page: V1PageQuery): PageRequest {
  return { limit: page.perPage, offset: (page.p - 1) * page.perPage };
}
