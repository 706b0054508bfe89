import path from 'node:path';

/** Media types of the original formats the catalogue takes. */
const ORIGINAL_TYPES: Record<string, string> = {
  wav: 'audio/wav',
  aif: 'audio/aiff',
  aiff: 'audio/aiff',
  flac: 'audio/flac',
  ogg: 'audio/ogg',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
};

export function originalMediaType(file: string): string {
  return ORIGINAL_TYPES[path.extname(file).slice(1).toLowerCase()] ?? 'application/octet-stream';
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
