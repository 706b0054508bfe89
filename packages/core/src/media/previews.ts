import type { PreviewEncoding } from '../ffmpeg/args.ts';

export type PreviewKey = 'preview-hq-mp3' | 'preview-lq-mp3' | 'preview-hq-ogg' | 'preview-lq-ogg';

/** The contract's four previews: mp3 ~128 and ~64 kbps, Ogg Vorbis ~192 and ~80 kbps. */
export const PREVIEWS: Record<PreviewKey, { encoding: PreviewEncoding; file: string }> = {
  'preview-hq-mp3': { encoding: { codec: 'libmp3lame', kbps: 128 }, file: 'preview-hq.mp3' },
  'preview-lq-mp3': { encoding: { codec: 'libmp3lame', kbps: 64 }, file: 'preview-lq.mp3' },
  'preview-hq-ogg': {
    encoding: { codec: 'libvorbis', kbps: 192, fallbackQuality: 6 },
    file: 'preview-hq.ogg',
  },
  'preview-lq-ogg': {
    encoding: { codec: 'libvorbis', kbps: 80, fallbackQuality: 1 },
    file: 'preview-lq.ogg',
  },
};

export const PREVIEW_KEYS = Object.keys(PREVIEWS) as PreviewKey[];
