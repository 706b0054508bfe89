import {
  type BookmarkCategoryView,
  type Db,
  findBookmarkCategory,
  listBookmarkCategories,
  listBookmarkedSounds,
  type Page,
  type PageRequest,
  UNCATEGORIZED,
} from '@earshot/catalogue';
import { NotFoundError } from '@earshot/common';

export { type BookmarkCategoryView, UNCATEGORIZED };

/** A user's bookmark categories and the sounds in each (`/apiv2/me/bookmark_categories/…`). */
export class BookmarkCategories {
  constructor(private readonly db: Db) {}

  /** The uncategorized pseudo-category (id 0) first when it holds bookmarks, then by name. */
  list(userId: number): Promise<BookmarkCategoryView[]> {
    return listBookmarkCategories(this.db, userId);
  }

  /**
   * The public sounds of one category (0: the uncategorized bookmarks), most recently bookmarked
   * first, as ids for the sound-list presenter. Another user's category is as unknown as a missing
   * one: 404.
   */
  async soundIds(userId: number, categoryId: number, page: PageRequest): Promise<Page<number>> {
    if (categoryId !== UNCATEGORIZED && !(await findBookmarkCategory(this.db, userId, categoryId))) {
      throw new NotFoundError('Not found.');
    }
    const sounds = await listBookmarkedSounds(this.db, userId, categoryId, page);
    return { count: sounds.count, items: sounds.items.map((s) => s.id) };
  }
}
