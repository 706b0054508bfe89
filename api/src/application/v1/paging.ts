import type { PageRequest } from '@earshot/catalogue';
import { ValidationError } from '@earshot/common';
import { encodeQuery } from '../../framework/http/pagination.ts';
import type { V1Sound } from '../../v1/presenters/sound.ts';

export const V1_PAGE_SIZE = 30;
export const V1_MAX_PAGE_SIZE = 100;

/** A version 1 page: `p` (1-based) and `sounds_per_page`. */
export interface V1PageQuery {
  p: number;
  perPage: number;
}

/** Where links point and which query they echo (with only `p` replaced). */
export interface V1Links {
  origin: string;
  path: string;
  query: Record<string, string>;
}

/** What a version 1 list call needs from the request. */
export interface V1ListRequest {
  links: V1Links;
  page: V1PageQuery;
  fields?: string[];
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

/** The version 1 sound list: `previous` and `next` are absent (not null) when there is none. */
export interface V1SoundPage {
  sounds: V1Sound[];
  num_results: number;
  num_pages: number;
  previous?: string;
  next?: string;
}

export function v1PageLink(links: V1Links, p: number): string {
  const entries = Object.entries(links.query).filter(([name]) => name !== 'p');
  entries.push(['p', String(p)]);
  return `${links.origin}${links.path}${encodeQuery(entries)}`;
}

/** A page past the end is a 200 with no sounds and no links, as the original answered. */
export function v1SoundPage(req: V1ListRequest, count: number, sounds: V1Sound[]): V1SoundPage {
  const pages = Math.ceil(count / req.page.perPage);
  const { p } = req.page;
  const out: V1SoundPage = { sounds, num_results: count, num_pages: pages };
  if (p > 1 && p <= pages) out.previous = v1PageLink(req.links, p - 1);
  if (p < pages) out.next = v1PageLink(req.links, p + 1);
  return out;
}
