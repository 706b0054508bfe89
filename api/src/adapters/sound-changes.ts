import { type Db, readSoundChanges, soundRecordsByIds } from '@earshot/catalogue';
import type { SoundChangesReader } from '../application/ports.ts';

/** The changes feed's reads, bound to the catalogue and never cached. */
export function soundChangesReader(db: Db, defaultSpace: string): SoundChangesReader {
  return {
    after: (position, limit) => readSoundChanges(db, position, limit),
    soundsByIds: (ids) => soundRecordsByIds(db, ids, defaultSpace),
  };
}
