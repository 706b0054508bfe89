import type { WalkCursors } from '../../application/records.ts';
import type { V1PageQuery } from '../../application/v1/paging.ts';
import type { V1SoundPageRecord, V1SoundRecord } from '../../application/v1/records.ts';
import { encodeQuery, type LinkBase } from '../../v2/presenters/pagination.ts';
import { serializeV1Sound, type V1Sound, v1Geotag } from './sound.ts';

/** Where a version 1 list's links point and which query they echo (with only `p` replaced). */
export type V1Links = LinkBase;

/** What the version 1 list presenter needs from the request: links, the page asked, the fields. */
export interface V1ListView {
  links: V1Links;
  page: V1PageQuery;
  fields?: string[];
}

/** The version 1 sound list: `previous` and `next` are absent (not null) when there is none. */
export interface V1SoundPage {
  sounds: V1Sound[];
  num_results: number;
  num_pages: number;
  previous?: string;
  next?: string;
}

/** What a list adds to each sound after its fields (distance, geotag, bookmark_name…). */
export type V1Extras = (record: V1SoundRecord) => Record<string, unknown> | undefined;

export function v1PageLink(links: V1Links, p: number): string {
  const entries = Object.entries(links.query).filter(([name]) => name !== 'p');
  entries.push(['p', String(p)]);
  return `${links.origin}${links.path}${encodeQuery(entries)}`;
}

/** A link to another page of a cursor walk: the request's query with `cursor` replaced (and no `p`). */
export function v1CursorLink(links: V1Links, cursor: string): string {
  const entries = Object.entries(links.query).filter(([name]) => name !== 'p' && name !== 'cursor');
  entries.push(['cursor', cursor]);
  return `${links.origin}${links.path}${encodeQuery(entries)}`;
}

/**
 * A page past the end is a 200 with no sounds and no links, as the original answered. A page of a
 * cursor walk links the cursors of its neighbours; `num_pages` is then the walk's length in pages
 * of this size.
 */
export function v1SoundPage(
  req: Pick<V1ListView, 'links' | 'page'>,
  count: number,
  sounds: V1Sound[],
  cursors?: WalkCursors,
): V1SoundPage {
  const pages = Math.ceil(count / req.page.perPage);
  const out: V1SoundPage = { sounds, num_results: count, num_pages: pages };
  if (cursors) {
    if (cursors.previous !== null) out.previous = v1CursorLink(req.links, cursors.previous);
    if (cursors.next !== null) out.next = v1CursorLink(req.links, cursors.next);
    return out;
  }
  const { p } = req.page;
  if (p > 1 && p <= pages) out.previous = v1PageLink(req.links, p - 1);
  if (p < pages) out.next = v1PageLink(req.links, p + 1);
  return out;
}

/** A use case's page of sounds as version 1 lists show it: the reduced records, then the list's extras. */
export function presentV1SoundPage(
  view: V1ListView,
  page: V1SoundPageRecord,
  extras?: V1Extras,
): V1SoundPage {
  const sounds = page.items.map((record) => {
    const sound = serializeV1Sound(record.sound, view.links.origin, 'collection', view.fields);
    const added = extras?.(record);
    return added ? Object.assign(sound, added) : sound;
  });
  return v1SoundPage(view, page.count, sounds, page.cursors);
}

/** Geotag search: each sound's position. */
export const withGeotag: V1Extras = (record) => ({ geotag: v1Geotag(record.sound) });

/** Similar sounds: the distance to the queried sound. */
export const withDistance: V1Extras = (record) => ({ distance: record.distance });

/** A bookmark category's sounds: each bookmark's name. */
export const withBookmarkName: V1Extras = (record) => ({ bookmark_name: record.bookmarkName });

/**
 * A grouped search: the sounds standing for their pack say how many matched there and link to the
 * same search restricted to that pack, ungrouped.
 */
export function withSamePack(links: V1Links, params: { q?: string; f?: string; s?: string }): V1Extras {
  return (record) =>
    record.samePack && record.sound.pack_name !== null
      ? {
          n_results_from_the_same_pack: record.samePack.count,
          results_from_the_same_pack: samePackLink(links, params, record.sound.pack_name),
        }
      : undefined;
}

function samePackLink(
  links: V1Links,
  params: { q?: string; f?: string; s?: string },
  packName: string,
): string {
  const entries: Array<[string, string]> = [
    ['q', params.q ?? ''],
    ['f', `pack:"${packName.replace(/"/g, '\\"')}"${params.f ? ` ${params.f}` : ''}`],
    ['s', params.s ?? ''],
    ['g', ''],
  ];
  for (const name of ['sounds_per_page', 'fields', 'api_key', 'token']) {
    const value = links.query[name];
    if (value !== undefined) entries.push([name, value]);
  }
  return `${links.origin}${links.path}${encodeQuery(entries)}`;
}
