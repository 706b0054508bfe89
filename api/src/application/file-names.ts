import { SERVED_FILE_NAMES } from '@earshot/core';
import type { FileKind } from './ports.ts';

/** The public file name of each stored file kind; URLs are `/media/sounds/<id>/<file name>`. */
export const FILE_NAMES: Readonly<Record<FileKind, string>> = SERVED_FILE_NAMES;

const KIND_BY_NAME = new Map(Object.entries(FILE_NAMES).map(([kind, name]) => [name, kind as FileKind]));

export function fileKindByName(name: string): FileKind | undefined {
  return KIND_BY_NAME.get(name);
}

export function fileUrl(origin: string, soundId: number, kind: FileKind): string {
  return `${origin}/media/sounds/${soundId}/${FILE_NAMES[kind]}`;
}
