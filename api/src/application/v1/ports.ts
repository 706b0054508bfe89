import type { AnalysisState, BookmarkCategoryView, Page, PageRequest } from '@earshot/catalogue';

/** What only the version 1 interface reads, beyond the ports version 2 shares with it. */
export interface LegacyReader {
  analysisState(soundId: number): Promise<AnalysisState>;
  /** Absolute path and upload name of a public sound's stored original; undefined when none. */
  originalFile(soundId: number): Promise<{ path: string; filename: string } | undefined>;
  bookmarkCategories(userId: number): Promise<BookmarkCategoryView[]>;
  /** True when the user has a category with that id (0, uncategorized, always exists). */
  hasBookmarkCategory(userId: number, categoryId: number): Promise<boolean>;
  bookmarkedSounds(
    userId: number,
    categoryId: number,
    page: PageRequest,
  ): Promise<Page<{ id: number; bookmark_name: string }>>;
  /** The names of the user's bookmarks of these sounds (read afresh for each page of a cursor walk). */
  bookmarkNames(userId: number, soundIds: readonly number[]): Promise<Map<number, string>>;
}
