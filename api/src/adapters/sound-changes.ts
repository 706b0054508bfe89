import { type Db, readSoundChangesWithRecords, soundRecordsByIds } from '@earshot/catalogue';
import type { SoundChangesReader } from '../application/ports.ts';

/** The changes feed's reads, bound to the catalogue and never cached. */
export function soundChangesReader(db: Db, defaultSpace: string): SoundChangesReader {
  return {
    after: (position, limit, columns) =>
      readSoundChangesWithRecords(db, position, limit, columns, defaultSpace),
    soundsByIds: (ids) => soundRecordsByIds(db, ids, defaultSpace),
  };
}
