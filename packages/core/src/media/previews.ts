import type { PreviewEncoding } from '../ffmpeg/args.ts';
import { STORED_FILES, type StoredFileKind } from './stored-files.ts';

export type PreviewKey = Extract<StoredFileKind, `preview-${string}`>;

/** The contract's four previews: mp3 ~128 and ~64 kbps, Ogg Vorbis ~192 and ~80 kbps. */
export const PREVIEWS: Record<PreviewKey, { encoding: PreviewEncoding; file: string }> = {
  'preview-hq-mp3': {
    encoding: { codec: 'libmp3lame', kbps: 128 },
    file: STORED_FILES['preview-hq-mp3'].file,
  },
  'preview-lq-mp3': {
    encoding: { codec: 'libmp3lame', kbps: 64 },
    file: STORED_FILES['preview-lq-mp3'].file,
  },
  'preview-hq-ogg': {
    encoding: { codec: 'libvorbis', kbps: 192, fallbackQuality: 6 },
    file: STORED_FILES['preview-hq-ogg'].file,
  },
  'preview-lq-ogg': {
    encoding: { codec: 'libvorbis', kbps: 80, fallbackQuality: 1 },
    file: STORED_FILES['preview-lq-ogg'].file,
  },
};

export const PREVIEW_KEYS = Object.keys(PREVIEWS) as PreviewKey[];
