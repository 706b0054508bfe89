/** What the media stage leaves in a sound's media folder, and nothing else (sorted, as readdir is sorted here). */
export const MEDIA_STAGE_FILES = [
  'peaks.json',
  'preview-hq.mp3',
  'preview-hq.ogg',
  'preview-lq.mp3',
  'preview-lq.ogg',
  'spectral_l.jpg',
  'spectral_m.jpg',
  'waveform_l.png',
  'waveform_m.png',
];
