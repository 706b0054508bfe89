import type { BookmarkCategoryView, PackView, Page, UserRecord } from '@earshot/catalogue';
import type { V1BookmarkCategories } from '../../application/v1/records.ts';
import { userPage, v1Ref, v1Timestamp, v1UserLink, v1UserRef } from './links.ts';
import type { V1BookmarkCategoryJson, V1PackJson, V1UserJson } from './schemas.ts';

export function serializeV1User(user: UserRecord, origin: string): V1UserJson {
  const ref = v1UserRef(origin, user.username);
  return {
    username: user.username,
    ref,
    url: userPage(origin, user.username),
    sounds: `${ref}sounds/`,
    packs: `${ref}packs/`,
    bookmark_categories: `${ref}bookmark_categories/`,
    about: user.about,
    home_page: user.homepage,
    // The catalogue keeps neither forum signatures nor real names: the contract's empty values.
    signature: '',
    first_name: '',
    last_name: '',
    date_joined: v1Timestamp(user.date_joined),
  };
}

export function serializeV1Pack(pack: PackView, origin: string): V1PackJson {
  return {
    id: pack.id,
    ref: v1Ref(origin, `packs/${pack.id}/`),
    url: `${userPage(origin, pack.username)}packs/${pack.id}/`,
    sounds: v1Ref(origin, `packs/${pack.id}/sounds/`),
    user: v1UserLink(origin, pack.username),
    name: pack.name,
    ...(pack.description ? { description: pack.description } : {}),
    created: v1Timestamp(pack.created),
    num_downloads: pack.num_downloads,
  };
}

/** A user's packs: not paged in version 1. */
export function presentV1PackList(packs: Page<PackView>, origin: string) {
  return { num_results: packs.count, packs: packs.items.map((p) => serializeV1Pack(p, origin)) };
}

/** The uncategorized pseudo-category's name in version 1 lists. */
export const UNCATEGORIZED_NAME = 'Uncategorized bookmarks';

export function serializeV1BookmarkCategory(
  category: BookmarkCategoryView,
  username: string,
  origin: string,
): V1BookmarkCategoryJson {
  const uncategorized = category.id === 0;
  const segment = uncategorized ? 'uncategorized' : String(category.id);
  return {
    id: category.id,
    name: uncategorized ? UNCATEGORIZED_NAME : category.name,
    url: `${userPage(origin, username)}bookmarks/${uncategorized ? '' : `category/${category.id}/`}`,
    sounds: `${v1UserRef(origin, username)}bookmark_categories/${segment}/sounds/`,
  };
}

export function presentV1BookmarkCategories(list: V1BookmarkCategories, origin: string) {
  return {
    num_results: list.categories.length,
    categories: list.categories.map((c) => serializeV1BookmarkCategory(c, list.username, origin)),
  };
}
