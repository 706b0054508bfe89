import { ORIGINAL_MEDIA_TYPES, SERVED_FILE_NAMES } from '@earshot/core';
import type { FileKind } from '../../application/ports.ts';

/** The public file name of each stored file kind; URLs are `/media/sounds/<id>/<file name>`. */
export const FILE_NAMES: Readonly<Record<FileKind, string>> = SERVED_FILE_NAMES;

const KIND_BY_NAME = new Map(Object.entries(FILE_NAMES).map(([kind, name]) => [name, kind as FileKind]));

export function fileKindByName(name: string): FileKind | undefined {
  return KIND_BY_NAME.get(name);
}

/** By extension: the stored files' (previews are mp3 and ogg, as originals can be) and originals'. */
export const MEDIA_TYPES: Record<string, string> = {
  ...ORIGINAL_MEDIA_TYPES,
  png: 'image/png',
  jpg: 'image/jpeg',
  json: 'application/json',
};

export function fileUrl(origin: string, soundId: number, kind: FileKind): string {
  return `${origin}/media/sounds/${soundId}/${FILE_NAMES[kind]}`;
}
