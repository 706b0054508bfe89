import type { BookmarkCategoryView } from '@earshot/catalogue';
import type { BookmarkCategoryJson } from './schemas.ts';

/**
 * A category's only resource is its sound list, so `url` names it too (upstream's `url` is a web
 * page this service does not have).
 */
export function serializeBookmarkCategory(
  category: BookmarkCategoryView,
  origin: string,
): BookmarkCategoryJson {
  const sounds = `${origin}/apiv2/me/bookmark_categories/${category.id}/sounds/`;
  return { id: category.id, url: sounds, name: category.name, num_sounds: category.num_sounds, sounds };
}
