import path from 'node:path';
import {
  bookmarkNames,
  type Db,
  findBookmarkCategory,
  listBookmarkCategories,
  listBookmarkedSounds,
  publicOriginalFile,
  soundAnalysisState,
  UNCATEGORIZED,
} from '@earshot/catalogue';
import type { LegacyReader } from '../application/v1/ports.ts';

/** The version 1 reads, bound to the catalogue; originals outside DATA_DIR are refused. */
export function legacyReader(db: Db, dataDir: string): LegacyReader {
  const root = path.resolve(dataDir);
  return {
    analysisState: (soundId) => soundAnalysisState(db, soundId),
    async originalFile(soundId) {
      const stored = await publicOriginalFile(db, soundId);
      if (!stored) return undefined;
      const absolute = path.resolve(root, stored.path);
      if (!absolute.startsWith(root + path.sep)) return undefined;
      return { path: absolute, filename: stored.filename };
    },
    bookmarkCategories: (userId) => listBookmarkCategories(db, userId),
    async hasBookmarkCategory(userId, categoryId) {
      return (
        categoryId === UNCATEGORIZED || (await findBookmarkCategory(db, userId, categoryId)) !== undefined
      );
    },
    async bookmarkedSounds(userId, categoryId, page) {
      const found = await listBookmarkedSounds(db, userId, categoryId, page);
      return {
        count: found.count,
        items: found.items.map((s) => ({ id: s.id, bookmark_name: s.bookmark_name })),
      };
    },
    bookmarkNames: (userId, soundIds) => bookmarkNames(db, userId, soundIds),
  };
}
