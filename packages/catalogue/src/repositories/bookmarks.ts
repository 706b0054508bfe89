import { sql } from 'kysely';
import type { Bookmark, BookmarkCategory } from '../schema/database.ts';
import { type Db, inTransaction, type Page, type PageRequest } from './shared.ts';
import { isPublic, type SoundView } from './sounds.ts';

/** The id that names the uncategorized bookmarks (the contract's category 0). */
export const UNCATEGORIZED = 0;

export interface BookmarkCategoryView {
  /** 0 for the uncategorized pseudo-category. */
  id: number;
  name: string;
  num_sounds: number;
}

/**
 * Bookmarks a sound for a user. Without a category name the bookmark is uncategorized; an unknown
 * name creates the category. Bookmarking the same sound again moves and renames the bookmark.
 */
export function bookmarkSound(
  db: Db,
  input: { userId: number; soundId: number; name: string; category?: string },
): Promise<Bookmark> {
  return inTransaction(db, async (trx) => {
    let categoryId: number | null = null;
    if (input.category) {
      await trx
        .insertInto('bookmark_categories')
        .values({ user_id: input.userId, name: input.category })
        .onConflict((oc) => oc.columns(['user_id', 'name']).doNothing())
        .execute();
      const category = await trx
        .selectFrom('bookmark_categories')
        .select('id')
        .where('user_id', '=', input.userId)
        .where('name', '=', input.category)
        .executeTakeFirstOrThrow();
      categoryId = category.id;
    }
    const values = { category_id: categoryId, name: input.name };
    return trx
      .insertInto('bookmarks')
      .values({ user_id: input.userId, sound_id: input.soundId, ...values })
      .onConflict((oc) => oc.columns(['user_id', 'sound_id']).doUpdateSet(values))
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

export async function removeBookmark(db: Db, userId: number, soundId: number): Promise<void> {
  await db.deleteFrom('bookmarks').where('user_id', '=', userId).where('sound_id', '=', soundId).execute();
}

/**
 * The user's bookmark categories with their sizes; the uncategorized one (id 0, "Uncategorized")
 * comes first and only when it holds bookmarks.
 */
export async function listBookmarkCategories(db: Db, userId: number): Promise<BookmarkCategoryView[]> {
  const [categories, uncategorized] = await Promise.all([
    db
      .selectFrom('bookmark_categories as c')
      .select(['c.id', 'c.name'])
      .select((eb) =>
        eb
          .selectFrom('bookmarks as b')
          .select(eb.fn.countAll<number>().as('n'))
          .whereRef('b.category_id', '=', 'c.id')
          .as('num_sounds'),
      )
      .where('c.user_id', '=', userId)
      .orderBy('c.name')
      .execute(),
    db
      .selectFrom('bookmarks')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .where('category_id', 'is', null)
      .executeTakeFirstOrThrow(),
  ]);
  const views = categories.map((c) => ({ id: c.id, name: c.name, num_sounds: Number(c.num_sounds) }));
  const loose = Number(uncategorized.n);
  return loose > 0 ? [{ id: UNCATEGORIZED, name: 'Uncategorized', num_sounds: loose }, ...views] : views;
}

export function findBookmarkCategory(
  db: Db,
  userId: number,
  categoryId: number,
): Promise<BookmarkCategory | undefined> {
  return db
    .selectFrom('bookmark_categories')
    .selectAll()
    .where('user_id', '=', userId)
    .where('id', '=', categoryId)
    .executeTakeFirst();
}

export interface BookmarkedSound extends SoundView {
  bookmark_name: string;
}

/** The public sounds in one of the user's categories (0: uncategorized), most recently bookmarked first. */
export async function listBookmarkedSounds(
  db: Db,
  userId: number,
  categoryId: number,
  page: PageRequest,
): Promise<Page<BookmarkedSound>> {
  const base = db
    .selectFrom('bookmarks')
    .innerJoin('sounds', 'sounds.id', 'bookmarks.sound_id')
    .where('bookmarks.user_id', '=', userId)
    .where(isPublic)
    .where((eb) =>
      categoryId === UNCATEGORIZED
        ? eb('bookmarks.category_id', 'is', null)
        : eb('bookmarks.category_id', '=', categoryId),
    );
  const [{ count }, items] = await Promise.all([
    base.select(sql<number>`count(*)`.as('count')).executeTakeFirstOrThrow(),
    base
      .innerJoin('users', 'users.id', 'sounds.user_id')
      .leftJoin('packs', 'packs.id', 'sounds.pack_id')
      .selectAll('sounds')
      .select(['users.username', 'packs.name as pack_name', 'bookmarks.name as bookmark_name'])
      .orderBy('bookmarks.created', 'desc')
      .orderBy('bookmarks.id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
  ]);
  return { count: Number(count), items };
}

/** The names the user gave their bookmarks of these sounds (a sound they have not bookmarked is absent). */
export async function bookmarkNames(
  db: Db,
  userId: number,
  soundIds: readonly number[],
): Promise<Map<number, string>> {
  if (soundIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('bookmarks')
    .select(['sound_id', 'name'])
    .where('user_id', '=', userId)
    .where('sound_id', 'in', [...soundIds])
    .execute();
  return new Map(rows.map((r) => [r.sound_id, r.name]));
}

/** The user's bookmark of one sound (its name and category name; null category = uncategorized). */
export async function getBookmark(
  db: Db,
  userId: number,
  soundId: number,
): Promise<{ name: string; category: string | null } | undefined> {
  const row = await db
    .selectFrom('bookmarks')
    .leftJoin('bookmark_categories', 'bookmark_categories.id', 'bookmarks.category_id')
    .select(['bookmarks.name as name', 'bookmark_categories.name as category'])
    .where('bookmarks.user_id', '=', userId)
    .where('bookmarks.sound_id', '=', soundId)
    .executeTakeFirst();
  return row ? { name: row.name, category: row.category ?? null } : undefined;
}
