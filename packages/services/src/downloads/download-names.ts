import path from 'node:path';
import { ORIGINAL_MEDIA_TYPES } from '@earshot/core';

/** Looked up by any extension a stored original has, accepted or not. */
const BY_EXTENSION: Readonly<Record<string, string | undefined>> = ORIGINAL_MEDIA_TYPES;

export function originalMediaType(file: string): string {
  return BY_EXTENSION[path.extname(file).slice(1).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * The name a downloaded original is saved under: `<id>__<username>__<sound name>.<ext>`, as the
 * original service names them, so files from many sounds neither collide nor lose their author.
 * Path separators and control characters become `_` (the name also names zip entries).
 */
export function downloadName(sound: { id: number; username: string; name: string }, file: string): string {
  const ext = path.extname(file).toLowerCase();
  const base = sound.name.endsWith(ext) && ext !== '' ? sound.name.slice(0, -ext.length) : sound.name;
  return `${sound.id}__${safe(sound.username)}__${safe(base)}${ext}`;
}

function safe(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f/\\:*?"<>|]/g, '_').trim() || '_';
}
