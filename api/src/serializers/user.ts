import type { UserRecord } from '../ports.ts';
import type { UserJson } from './schemas.ts';
import { v2Date } from './timestamps.ts';

export function serialiseUser(user: UserRecord, origin: string): UserJson {
  const name = encodeURIComponent(user.username);
  return {
    url: `${origin}/people/${name}/`,
    username: user.username,
    about: user.about,
    homepage: user.homepage,
    avatar: user.hasAvatar
      ? {
          small: `${origin}/media/avatars/${user.id}_s.jpg`,
          medium: `${origin}/media/avatars/${user.id}_m.jpg`,
          large: `${origin}/media/avatars/${user.id}_l.jpg`,
        }
      : null,
    date_joined: v2Date(user.dateJoined),
    num_sounds: user.numSounds,
    sounds: `${origin}/apiv2/users/${name}/sounds/`,
    num_packs: user.numPacks,
    packs: `${origin}/apiv2/users/${name}/packs/`,
    num_posts: user.numPosts,
    num_comments: user.numComments,
  };
}
