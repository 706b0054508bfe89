import type { FileKind } from './ports.ts';

/** The public file name of each stored file kind; URLs are `/media/sounds/<id>/<file name>`. */
export const FILE_NAMES: Record<FileKind, string> = {
  'preview-hq-mp3': 'preview-hq.mp3',
  'preview-lq-mp3': 'preview-lq.mp3',
  'preview-hq-ogg': 'preview-hq.ogg',
  'preview-lq-ogg': 'preview-lq.ogg',
  waveform_m: 'waveform_m.png',
  waveform_l: 'waveform_l.png',
  spectral_m: 'spectral_m.jpg',
  spectral_l: 'spectral_l.jpg',
  analysis_frames: 'analysis-frames.json',
  analysis_stats: 'analysis-stats.json',
  peaks: 'peaks.json',
};

const KIND_BY_NAME = new Map(Object.entries(FILE_NAMES).map(([kind, name]) => [name, kind as FileKind]));

export function fileKindByName(name: string): FileKind | undefined {
  return KIND_BY_NAME.get(name);
}

export function fileUrl(origin: string, soundId: number, kind: FileKind): string {
  return `${origin}/media/sounds/${soundId}/${FILE_NAMES[kind]}`;
}
