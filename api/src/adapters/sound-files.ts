import path from 'node:path';
import { type Db, soundMediaPaths, soundUploaderId } from '@earshot/catalogue';
import type { FileKind, SoundFiles } from '../application/ports.ts';

/**
 * Stored files by kind, from the sound's `media_paths` (relative to DATA_DIR). Paths that would
 * leave DATA_DIR are refused, whatever the database says.
 */
export function soundFiles(db: Db, dataDir: string): SoundFiles {
  const root = path.resolve(dataDir);
  return {
    async locate(soundId: number, kind: FileKind) {
      const relative = (await soundMediaPaths(db, soundId))?.[kind];
      if (!relative) return undefined;
      const absolute = path.resolve(root, relative);
      if (!absolute.startsWith(root + path.sep)) return undefined;
      return absolute;
    },
    uploaderOf: (soundId) => soundUploaderId(db, soundId),
  };
}
