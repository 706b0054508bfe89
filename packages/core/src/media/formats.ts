import path from 'node:path';

/**
 * The original-file types of the contract's `type` field: what uploads, imports and the catalogue
 * take. The catalogue, the services, the API and the CLI read their lists of formats from this file.
 */
export const ACCEPTED_TYPES = ['wav', 'aif', 'aiff', 'ogg', 'mp3', 'm4a', 'flac'] as const;
export type SoundType = (typeof ACCEPTED_TYPES)[number];

/**
 * One entry per container (`aif` is the AIFF container's other name), in the order the search
 * page offers them as filters. `containerOfType` fails to compile when a type has no entry here.
 */
export const CONTAINERS = ['wav', 'aiff', 'flac', 'mp3', 'ogg', 'm4a'] as const;
export type Container = (typeof CONTAINERS)[number];

export function containerOfType(type: SoundType): Container {
  return type === 'aif' ? 'aiff' : type;
}

/** The type of a file found to be `container`, keeping the uploader's `.aif` spelling of AIFF. */
export function typeOfContainer(container: Container, claimed: SoundType | undefined): SoundType {
  return container === 'aiff' && claimed === 'aif' ? 'aif' : container;
}

/** The media type each original is served with (downloads, version 1's `serve`). */
export const ORIGINAL_MEDIA_TYPES: Readonly<Record<SoundType, string>> = {
  wav: 'audio/wav',
  aif: 'audio/aiff',
  aiff: 'audio/aiff',
  flac: 'audio/flac',
  ogg: 'audio/ogg',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
};

/** Types whose bitrate is a property of the encoding (the others report 0, as upstream does). */
export const LOSSY_TYPES: ReadonlySet<SoundType> = new Set(['ogg', 'mp3', 'm4a']);

/** Extensions users put on each type; `.aif`/`.aiff` are two names of one container. */
const EXTENSIONS: Record<string, SoundType> = {
  wav: 'wav',
  wave: 'wav',
  aif: 'aif',
  aiff: 'aiff',
  aifc: 'aiff',
  ogg: 'ogg',
  oga: 'ogg',
  mp3: 'mp3',
  m4a: 'm4a',
  mp4: 'm4a',
  flac: 'flac',
};

/** Lower-case extension without the dot ('' when there is none). */
export function extensionOf(fileName: string): string {
  return path.extname(fileName).slice(1).toLowerCase();
}

export function typeFromExtension(fileName: string): SoundType | undefined {
  return EXTENSIONS[extensionOf(fileName)];
}

/** Audio codecs we decode per container; anything else in an accepted container is refused. */
const CODECS: Record<Container, RegExp> = {
  wav: /^(pcm_|adpcm_ms|adpcm_ima_wav|gsm_ms|mp3$)/,
  aiff: /^(pcm_|adpcm_ima_qt)/,
  ogg: /^(vorbis|opus|flac)$/,
  mp3: /^mp3(float)?$/,
  m4a: /^(aac|alac|mp3)$/,
  flac: /^flac$/,
};

/**
 * The type of a file from what ffprobe found inside it (container + codec), independent of its
 * name. Undefined for anything outside the contract's list (opus in webm, caf, midi, video…).
 */
export function typeFromProbe(formatName: string, codecName: string): Container | undefined {
  const formats = formatName.split(',');
  let container: Container | undefined;
  if (formats.includes('wav')) container = 'wav';
  else if (formats.includes('aiff')) container = 'aiff';
  else if (formats.includes('ogg')) container = 'ogg';
  else if (formats.includes('mp3')) container = 'mp3';
  else if (formats.includes('flac')) container = 'flac';
  else if (formats.includes('m4a') || formats.includes('mov')) container = 'm4a';
  if (!container) return undefined;
  return CODECS[container].test(codecName) ? container : undefined;
}
