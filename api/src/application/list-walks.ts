import type { Page as CataloguePage, PageRequest } from '@earshot/catalogue';
import { decodeWalkCursor, encodeWalkCursor } from '@earshot/catalogue';
import { ValidationError } from '@earshot/common';
import type { Hit, Hits, ListWalkStore } from './ports.ts';
import type { Page, SoundReads, SoundRecord, WalkCursors } from './records.ts';
import type { SoundRecords } from './sound-records.ts';

/**
 * Cursor paging (docs/api.md "Cursor paging"): `cursor=*` freezes a list's whole order (a search,
 * a user's or a pack's sounds, a bookmark category, similar sounds) and every later page reads the
 * frozen ids, in whichever API process, and shows those still public. A sound public for the whole
 * walk is listed exactly once, whatever the sort and whatever changes meanwhile: the order was
 * fixed at the start, so no edit (downloads, rating, a renamed sound's relevance) can move it
 * across the reader's position. A sound added during the walk is not in it (the changes feed
 * carries it).
 */

/** The `cursor` that starts a walk. */
export const START_WALK = '*';

/** Most sounds one walk holds: the first this many of a longer list (docs/api.md says why). */
export const WALK_MAX_SOUNDS = 1_000_000;

/**
 * Most sounds a walk of a similarity ranking holds: ranking a whole catalogue by an approximate
 * nearest-neighbour graph costs a search as wide as the catalogue.
 */
export const SIMILARITY_WALK_MAX_SOUNDS = 10_000;

/** One page of a walk: its hits (`count` is the walk's length), where it starts and the cursors around it. */
export interface WalkPage {
  hits: Hits;
  /** The position of the page's first sound in the walk (0 on the first page). */
  offset: number;
  cursors: WalkCursors;
}

/** How a use case walks its list: under which name, and how to read all of it when a walk starts. */
export interface WalkedList {
  /** Names the list exactly (its kind and resolved parameters): a cursor continues only that list. */
  key: string;
  /** Most sounds a walk of it holds. */
  max: number;
  /** The list's first `limit` hits, in its order. */
  all: (limit: number) => Promise<Hits>;
}

/**
 * A cursor the walks cannot continue: not one this server handed out, of a walk of another list,
 * or of a walk no longer kept. A 400 naming `cursor`; the web pages offer a fresh walk instead.
 */
export class CursorRefused extends ValidationError {}

export class ListWalks {
  /** Without a store (a server wired without the catalogue's walks) a cursor is a 400. */
  constructor(private readonly store: ListWalkStore | undefined) {}

  /** The page of `pageSize` at `cursor` (START_WALK: the first page of a new walk). */
  async page(cursor: string, pageSize: number, list: WalkedList): Promise<WalkPage> {
    const store = this.store;
    if (!store) throw new ValidationError('cursor: cursor paging is not available on this server');
    if (cursor === START_WALK) return this.start(store, pageSize, list);
    const { walkId, offset } = readCursor(cursor);
    const slice = await store.read(walkId, list.key, { offset, limit: pageSize });
    if (slice === 'other-list')
      throw new CursorRefused(
        'cursor: it belongs to a walk of another list; keep the parameters of the request that started it',
      );
    if (slice === 'unknown')
      throw new CursorRefused(
        `cursor: the walk has expired or is unknown; start a new one with cursor=${START_WALK}`,
      );
    return {
      hits: { count: slice.total, items: slice.hits },
      offset,
      cursors: cursorsAround(walkId, offset, pageSize, slice.total),
    };
  }

  private async start(store: ListWalkStore, pageSize: number, list: WalkedList): Promise<WalkPage> {
    const items = distinct((await list.all(list.max)).items).slice(0, list.max);
    const first = items.slice(0, pageSize);
    // A list that fits in its first page needs no stored walk.
    if (items.length <= pageSize) {
      return {
        hits: { count: items.length, items: first },
        offset: 0,
        cursors: { next: null, previous: null },
      };
    }
    const walkId = await store.start(list.key, items);
    return {
      hits: { count: items.length, items: first },
      offset: 0,
      cursors: cursorsAround(walkId, 0, pageSize, items.length),
    };
  }
}

/**
 * The names of the lists of ids that both versions walk (`walkIdList`): one list, one name, so a
 * walk's cursor names the list and not the version that started it.
 */
export const ID_LISTS = {
  userSounds: (userId: number) => `user:${userId}`,
  packSounds: (packId: number) => `pack:${packId}`,
  bookmarks: (userId: number, categoryId: number) => `bookmarks:${userId}:${categoryId}`,
};

/**
 * A walk of a list of sound ids in the catalogue's order (a user's or a pack's sounds, a bookmark
 * category), for either version's routes: `read` is the list's paged read, asked once for all of
 * it when the walk starts.
 */
export async function walkIdList(
  walks: ListWalks,
  records: SoundRecords,
  cursor: string,
  page: { pageSize: number; reads?: SoundReads },
  key: string,
  read: (window: PageRequest) => Promise<CataloguePage<number>>,
): Promise<Page<SoundRecord>> {
  const walk = await walks.page(cursor, page.pageSize, {
    key,
    max: WALK_MAX_SOUNDS,
    all: async (limit) => {
      const slice = await read({ limit, offset: 0 });
      return { count: slice.count, items: slice.items.map((id) => ({ id })) };
    },
  });
  return records.walkPage(walk, page.pageSize, page.reads);
}

function readCursor(cursor: string): { walkId: string; offset: number } {
  try {
    return decodeWalkCursor(cursor);
  } catch (err) {
    if (err instanceof ValidationError) throw new CursorRefused(err.message);
    throw err;
  }
}

function cursorsAround(walkId: string, offset: number, pageSize: number, total: number): WalkCursors {
  return {
    next: offset + pageSize < total ? encodeWalkCursor({ walkId, offset: offset + pageSize }) : null,
    previous:
      offset > 0
        ? encodeWalkCursor({ walkId, offset: Math.max(0, Math.min(offset, total) - pageSize) })
        : null,
  };
}

/** Each sound once, at its first place: the guarantee holds only for a list without repeats. */
function distinct(items: readonly Hit[]): Hit[] {
  const seen = new Set<number>();
  return items.filter((hit) => !seen.has(hit.id) && seen.add(hit.id) !== undefined);
}
