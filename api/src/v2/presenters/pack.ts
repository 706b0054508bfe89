import type { PackView } from '@earshot/catalogue';
import type { PackJson } from './schemas.ts';
import { v2Timestamp } from './timestamps.ts';

export function serializePack(pack: PackView, origin: string): PackJson {
  return {
    id: pack.id,
    url: `${origin}/people/${encodeURIComponent(pack.username)}/packs/${pack.id}/`,
    description: pack.description,
    created: v2Timestamp(pack.created),
    name: pack.name,
    username: pack.username,
    num_sounds: pack.num_sounds,
    sounds: `${origin}/apiv2/packs/${pack.id}/sounds/`,
    num_downloads: pack.num_downloads,
  };
}
