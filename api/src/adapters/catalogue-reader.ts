import {
  accountRecordById,
  type Db,
  getPack,
  listComments,
  listPacksByUser,
  publicSoundIdsByPack,
  publicSoundIdsByUser,
  soundRecordsByIds,
  userRecordByName,
} from '@earshot/catalogue';
import type { CatalogueReader } from '../application/ports.ts';

/**
 * The API's reads, bound to the catalogue's repositories. Only sounds that are approved and
 * processed exist for the API; every list has a stable order (newest first, then id).
 */
export function catalogueReader(db: Db, defaultSpace: string): CatalogueReader {
  return {
    soundsByIds: (ids, columns) => soundRecordsByIds(db, ids, defaultSpace, columns),
    userByName: (username) => userRecordByName(db, username),
    accountById: (userId) => accountRecordById(db, userId),
    userSounds: (userId, page) => publicSoundIdsByUser(db, userId, page),
    userPacks: (userId, page) => listPacksByUser(db, userId, page),
    packById: (id) => getPack(db, id),
    packSounds: (packId, page) => publicSoundIdsByPack(db, packId, page),
    soundComments: (soundId, page) => listComments(db, soundId, page),
  };
}
