import path from 'node:path';
import type { Readable } from 'node:stream';
import {
  type Db,
  getPack,
  getPublicSound,
  type PackFile,
  packFilePages,
  recordPackDownload,
  recordSoundDownload,
} from '@earshot/catalogue';
import { NotFoundError } from '@earshot/common';
import { downloadName, originalMediaType } from './download-names.ts';
import { packZip, type ZippedSound } from './pack-zip.ts';

export interface OriginalFile {
  /** Absolute path of the stored original. */
  file: string;
  /** The name the client should save it under. */
  filename: string;
  mediaType: string;
}

export interface PackArchive {
  filename: string;
  /** The zip, produced as it is read: one sound file open at a time, whatever the pack's size. */
  stream: Readable;
}

export interface PackArchiveOptions {
  /** Awaited before the zip's last entry (the readme) and its end: the download counted meanwhile. */
  beforeEnd?: () => Promise<unknown>;
}

/**
 * The original file of a public sound and the zip of a public pack (the contract's `download/`
 * resources). Downloads are counted apart from reading the file, so the API counts a download when
 * it starts sending the file, not for every range request a player makes.
 */
export class Downloads {
  private readonly root: string;

  constructor(
    private readonly db: Db,
    dataDir: string,
  ) {
    this.root = path.resolve(dataDir);
  }

  async soundOriginal(soundId: number): Promise<OriginalFile> {
    const sound = await getPublicSound(this.db, soundId);
    const file = sound && this.inDataDir(sound.original_path);
    if (!sound || !file) throw new NotFoundError('Not found.');
    return {
      file,
      filename: downloadName(sound, sound.original_filename || file),
      mediaType: originalMediaType(file),
    };
  }

  countSoundDownload(soundId: number, userId: number | null): Promise<void> {
    return recordSoundDownload(this.db, soundId, userId);
  }

  /**
   * 404 for an unknown pack or one without public sounds (nothing to download). Only the pack and
   * the first page of its sounds are read before the zip starts; the other pages are read as the
   * zip reaches them (packFilePages), so a pack of thousands starts as soon as one of ten.
   */
  async packArchive(packId: number, origin: string, options: PackArchiveOptions = {}): Promise<PackArchive> {
    const pages = packFilePages(this.db, packId);
    const [pack, first] = await Promise.all([getPack(this.db, packId), pages.next()]);
    if (!pack || first.done) {
      await pages.return(undefined);
      throw new NotFoundError('Not found.');
    }
    const zipped = (files: readonly PackFile[]) =>
      files.flatMap((f): ZippedSound[] => {
        const file = this.inDataDir(f.original_path);
        return file ? [{ ...f, file, entryName: downloadName(f, f.original_filename || file) }] : [];
      });
    async function* sounds(): AsyncGenerator<ZippedSound> {
      yield* zipped(first.value as PackFile[]);
      for await (const page of pages) yield* zipped(page);
    }
    return {
      filename: `${pack.id}__${safeName(pack.name)}.zip`,
      stream: packZip({ pack, sounds: sounds(), origin, beforeEnd: options.beforeEnd }),
    };
  }

  countPackDownload(packId: number, userId: number | null): Promise<void> {
    return recordPackDownload(this.db, packId, userId);
  }

  /** Catalogue paths are relative to DATA_DIR; one that would leave it is refused, whatever it says. */
  private inDataDir(relative: string): string | undefined {
    const absolute = path.resolve(this.root, relative);
    return absolute.startsWith(this.root + path.sep) ? absolute : undefined;
  }
}

function safeName(name: string): string {
  return name.replace(/[^\p{L}\p{N} ._-]/gu, '_').trim() || 'pack';
}
