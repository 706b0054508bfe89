import path from 'node:path';
import type { Database } from '@earshot/catalogue';
import type { Kysely } from 'kysely';
import type { FileKind, SoundFiles } from '../ports.ts';

/**
 * Stored files by kind, from the sound's `media_paths` (relative to DATA_DIR). Paths that would
 * leave DATA_DIR are refused, whatever the database says.
 */
export function soundFiles(db: Kysely<Database>, dataDir: string): SoundFiles {
  const root = path.resolve(dataDir);
  return {
    async locate(soundId: number, kind: FileKind) {
      const row = await db
        .selectFrom('sounds')
        .where('id', '=', soundId)
        .select('media_paths')
        .executeTakeFirst();
      const relative = row?.media_paths?.[kind];
      if (!relative) return undefined;
      const absolute = path.resolve(root, relative);
      if (!absolute.startsWith(root + path.sep)) return undefined;
      return absolute;
    },
  };
}
