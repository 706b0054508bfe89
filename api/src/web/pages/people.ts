import { NotFoundError } from '@earshot/common';
import type { Context } from 'koa';
import type { ListRequest } from '../../application/api-context.ts';
import type { ApiServices } from '../../application/index.ts';
import { CursorRefused } from '../../application/list-walks.ts';
import type { Page, SoundRecord } from '../../application/records.ts';
import type { LegacyServices } from '../../application/v1/index.ts';
import type { V1SoundRecord } from '../../application/v1/records.ts';
import { parseId } from '../../framework/http/params.ts';
import { readPageQuery } from '../../v2/presenters/pagination.ts';
import { render, renderError } from '../render.ts';
import {
  type ListPosition,
  type Pager,
  pagerOf,
  positionHref,
  REFUSED_CURSOR,
  readListPosition,
} from './walk-paging.ts';

/** Sounds per page on the user and pack pages. */
const PAGE_SIZE = 30;

/** The upstream addresses, the ones the API's `url` fields name (v2/presenters/user.ts, pack.ts, sound.ts). */
export const userPath = (username: string) => `/people/${encodeURIComponent(username)}/`;
export const packPath = (username: string, id: number) => `${userPath(username)}packs/${id}/`;
export const soundPath = (username: string, id: number) => `${userPath(username)}sounds/${id}/`;
/** A user's bookmarks (the loose ones), and one category of them: version 1's bookmark category `url`s. */
export const bookmarksPath = (username: string) => `${userPath(username)}bookmarks/`;
export const bookmarkCategoryPath = (username: string, id: number) =>
  `${bookmarksPath(username)}category/${id}/`;

interface SoundRow {
  id: number;
  name: string;
  path: string;
  tags: string[];
  license: string;
}

/**
 * The list request the API's own user and pack sound lists take for the position the page's query
 * asks (walk-paging.ts): a cursor, or `page=N` of an old address.
 */
function listOf(position: ListPosition): ListRequest {
  if ('cursor' in position)
    return { page: { page: 1, pageSize: PAGE_SIZE, style: 'list' }, cursor: position.cursor };
  return { page: { ...readPageQuery({ page: String(position.page) }, 'list'), pageSize: PAGE_SIZE } };
}

function rows(sounds: readonly SoundRecord[]): SoundRow[] {
  return sounds.map(({ sound: s }) => ({
    id: s.id,
    name: s.name,
    path: soundPath(s.username, s.id),
    tags: s.tags,
    license: s.license,
  }));
}

/** Previous and next page links of a page of sounds, on this page's own path. */
function paging(ctx: Context, found: Page<unknown>): Pager {
  return pagerOf(found, PAGE_SIZE, (to) => positionHref(ctx.path, to));
}

/** A cursor that cannot be continued: the reason, and the first page to start again from. */
function refusedCursor(ctx: Context): Promise<void> {
  return renderError(ctx, 400, {
    title: 'These pages are no longer kept',
    message: REFUSED_CURSOR,
    retryPath: ctx.path,
    retryLabel: 'Start again from the first page',
  });
}

/** `YYYY-MM-DD` in UTC, as the pages show dates. */
const isoDate = (date: Date) => date.toISOString().slice(0, 10);

async function notFound(ctx: Context, what: string): Promise<void> {
  await renderError(ctx, 404, { title: 'Page not found', message: `There is no such ${what}.` });
}

/** GET /people/<username>/: the user, their packs and their public sounds, newest first. */
export function showUser(services: ApiServices) {
  return async (ctx: Context) => {
    const username = String(ctx.params.username);
    const req = listOf(readListPosition(ctx.query));
    try {
      const [user, sounds, packs] = await Promise.all([
        services.people.user(username),
        services.people.userSounds(username, req),
        services.people.userPacks(username, { page: { ...req.page, page: 1 } }),
      ]);
      await render(ctx, 'user', {
        person: { username: user.username, about: user.about, joined: isoDate(user.date_joined) },
        sounds: rows(sounds.items),
        count: sounds.count,
        packs: packs.items.map((p) => ({
          name: p.name,
          path: packPath(p.username, p.id),
          num: p.num_sounds,
        })),
        paging: paging(ctx, sounds),
      });
    } catch (err) {
      if (err instanceof NotFoundError) return notFound(ctx, 'user');
      if (err instanceof CursorRefused) return refusedCursor(ctx);
      throw err;
    }
  };
}

/** GET /people/<username>/packs/<id>/: a pack and its public sounds (the pack's user must match). */
export function showPack(services: ApiServices) {
  return async (ctx: Context) => {
    const id = parseId(ctx.params.id);
    if (id === undefined) return notFound(ctx, 'pack');
    const req = listOf(readListPosition(ctx.query));
    try {
      const pack = await services.people.pack(id);
      if (pack.username !== String(ctx.params.username)) return notFound(ctx, 'pack');
      const sounds = await services.people.packSounds(id, req);
      await render(ctx, 'pack', {
        pack: {
          name: pack.name,
          username: pack.username,
          userPath: userPath(pack.username),
          created: isoDate(pack.created),
          description: pack.description,
        },
        sounds: rows(sounds.items),
        count: sounds.count,
        paging: paging(ctx, sounds),
      });
    } catch (err) {
      if (err instanceof NotFoundError) return notFound(ctx, 'pack');
      if (err instanceof CursorRefused) return refusedCursor(ctx);
      throw err;
    }
  };
}

/**
 * GET /people/<username>/bookmarks/ (the bookmarks in no category, and the categories) and
 * GET /people/<username>/bookmarks/category/<id>/ (one category's sounds): the website pages the
 * bookmark categories of version 1 name as their `url`, read through the same use case as its
 * `…/bookmark_categories/<id>/sounds/` (public there too). Each sound shows its bookmark's name.
 */
export function showBookmarks(v1: LegacyServices) {
  return async (ctx: Context) => {
    const username = String(ctx.params.username);
    const categoryParam = ctx.params.id === undefined ? undefined : parseId(ctx.params.id);
    if (ctx.params.id !== undefined && categoryParam === undefined) return notFound(ctx, 'bookmark category');
    const categoryId = categoryParam ?? 0;
    const position = readListPosition(ctx.query);
    const req =
      'cursor' in position
        ? { page: { p: 1, perPage: PAGE_SIZE }, cursor: position.cursor }
        : { page: { p: position.page, perPage: PAGE_SIZE } };
    try {
      const { username: owner, categories } = await v1.people.bookmarkCategories(username);
      const category = categories.find((c) => c.id === categoryId);
      if (categoryId !== 0 && !category) return notFound(ctx, 'bookmark category');
      const sounds: Page<V1SoundRecord> = category
        ? await v1.people.bookmarkedSounds(
            owner,
            categoryId === 0 ? 'uncategorized' : String(categoryId),
            req,
          )
        : { items: [], count: 0, page: 1, pageSize: PAGE_SIZE };
      await render(ctx, 'bookmarks', {
        title: category && categoryId !== 0 ? category.name : `Bookmarks of ${owner}`,
        owner,
        userPath: userPath(owner),
        allPath: categoryId === 0 ? undefined : bookmarksPath(owner),
        categories:
          categoryId === 0
            ? categories
                .filter((c) => c.id !== 0)
                .map((c) => ({ name: c.name, path: bookmarkCategoryPath(owner, c.id), num: c.num_sounds }))
            : [],
        sounds: rows(sounds.items).map((row, i) => ({
          ...row,
          name: sounds.items[i].bookmarkName ?? row.name,
        })),
        count: sounds.count,
        paging: paging(ctx, sounds),
      });
    } catch (err) {
      if (err instanceof NotFoundError) return notFound(ctx, 'user');
      if (err instanceof CursorRefused) return refusedCursor(ctx);
      throw err;
    }
  };
}
