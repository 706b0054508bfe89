import type { UserRecord } from '@earshot/catalogue';
import type { AccountRecord } from '../../application/records.ts';
import type { MeJson, UserJson } from './schemas.ts';
import { v2Date } from './timestamps.ts';

export function serializeUser(user: UserRecord, origin: string): UserJson {
  const name = encodeURIComponent(user.username);
  return {
    url: `${origin}/people/${name}/`,
    username: user.username,
    about: user.about,
    homepage: user.homepage,
    avatar:
      user.avatar_path !== null
        ? {
            small: `${origin}/media/avatars/${user.id}_s.jpg`,
            medium: `${origin}/media/avatars/${user.id}_m.jpg`,
            large: `${origin}/media/avatars/${user.id}_l.jpg`,
          }
        : null,
    date_joined: v2Date(user.date_joined),
    num_sounds: user.num_sounds,
    sounds: `${origin}/apiv2/users/${name}/sounds/`,
    num_packs: user.num_packs,
    packs: `${origin}/apiv2/users/${name}/packs/`,
    // Forum posts: the catalogue has no forum.
    num_posts: 0,
    num_comments: user.num_comments,
  };
}

/** `/apiv2/me/`: the user record plus the e-mail and `unique_id`, the user's id (stable across renames). */
export function serializeMe(account: AccountRecord, origin: string): MeJson {
  return { ...serializeUser(account, origin), email: account.email, unique_id: account.id };
}
