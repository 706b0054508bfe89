import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { probeArgs } from '../ffmpeg/args.ts';
import { FfmpegProcessError } from '../ffmpeg/errors.ts';
import { defaultFfmpeg, type Ffmpeg } from '../ffmpeg/ffmpeg.ts';
import { readPcmDataChunk } from './container-header.ts';
import { checkDuration } from './duration-limit.ts';
import { MediaError } from './errors.ts';
import {
  containerOfType,
  extensionOf,
  LOSSY_TYPES,
  type SoundType,
  typeFromExtension,
  typeFromProbe,
  typeOfContainer,
} from './formats.ts';

/** The parts of `ffprobe -show_format -show_streams` we read; the whole object is kept as `raw`. */
export interface FfprobeStream {
  index: number;
  codec_type?: string;
  codec_name?: string;
  sample_fmt?: string;
  sample_rate?: string;
  channels?: number;
  bits_per_sample?: number;
  bits_per_raw_sample?: string;
  duration?: string;
  bit_rate?: string;
  [key: string]: unknown;
}

export interface FfprobeOutput {
  streams?: FfprobeStream[];
  format?: {
    format_name?: string;
    duration?: string;
    size?: string;
    bit_rate?: string;
    [key: string]: unknown;
  };
}

/** What the contract's sound record needs about the original file, plus the raw probe output. */
export interface ProbeResult {
  type: SoundType;
  /** Seconds. */
  duration: number;
  samplerate: number;
  channels: number;
  /** Bits per sample of lossless files; 0 for lossy ones (unreliable, as the contract says). */
  bitdepth: number;
  /** kbps of lossy files (file size over duration, snapped to common rates); 0 for lossless ones. */
  bitrate: number;
  /** Bytes. */
  filesize: number;
  md5: string;
  /** CRC-32 of the file, when this probe read it for the md5 (a pack's zip stores it in its headers). */
  crc32?: number;
  /** The decoder ffmpeg uses for the audio stream. */
  codec: string;
  /** Index of the audio stream within the file (the one decoded and previewed). */
  streamIndex: number;
  raw: FfprobeOutput;
}

export interface ProbeOptions {
  /** The name the user gave the file (its extension is checked against the content); default: the path. */
  fileName?: string;
  timeoutMs?: number;
  /**
   * The file's md5 when the caller already has it (hashed while it streamed in): not read again;
   * false: none (a file that is analyzed and thrown away, such as a search clip, needs none).
   */
  md5?: string | false;
  /**
   * The file is still being written (an upload probed while it streams in): the WAV/AIFF length
   * check is left to `checkProbedLength` once it is whole.
   */
  partial?: boolean;
  /**
   * The longest sound taken, in seconds (UPLOAD_MAX_SECONDS): a longer one is refused (`too_long`).
   * Not applied to a partial file, whose length ffprobe can only guess.
   */
  maxDuration?: number;
  /** The ffmpeg/ffprobe to run (default: `defaultFfmpeg()`). */
  ffmpeg?: Ffmpeg;
}

const COMMON_BITRATES = [32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160, 192, 224, 256, 320];

/**
 * The most channels a sound may have: 22.2 surround, the widest standard layout. ffmpeg mixes up
 * to this many down to stereo even without a channel layout; from 32 on it cannot ("Rematrix is
 * needed … but there is not enough information").
 */
export const MAX_CHANNELS = 24;

/** The file's md5 and CRC-32 in one read (the CRC costs a tenth of the md5 with zlib's native code). */
export async function fileDigests(file: string): Promise<{ md5: string; crc32: number }> {
  const hash = createHash('md5');
  let crc = 0;
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
    hash.update(chunk as Buffer);
    crc = crc32(chunk as Buffer, crc);
  }
  return { md5: hash.digest('hex'), crc32: crc >>> 0 };
}

/** Lossy bitrate from size and duration, snapped to a standard rate when within 2 kbps (as upstream). */
export function estimateBitrate(type: SoundType, filesize: number, duration: number): number {
  if (!LOSSY_TYPES.has(type) || duration <= 0) return 0;
  const kbps = Math.round((filesize * 8) / duration / 1000);
  const near = COMMON_BITRATES.find((b) => Math.abs(b - kbps) <= 2);
  return near ?? kbps;
}

function bitDepthOf(type: SoundType, stream: FfprobeStream): number {
  if (LOSSY_TYPES.has(type) && !/^(flac|alac)$/.test(stream.codec_name ?? '')) return 0;
  const raw = Number(stream.bits_per_raw_sample);
  if (Number.isFinite(raw) && raw > 0) return raw;
  if (stream.bits_per_sample && stream.bits_per_sample > 0) return stream.bits_per_sample;
  if (stream.sample_fmt?.startsWith('flt')) return 32;
  if (stream.sample_fmt?.startsWith('dbl')) return 64;
  return 0;
}

function positive(value: string | undefined): number | undefined {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

/** Interprets ffprobe's JSON (pure: tested without ffprobe). Throws MediaError for what we refuse. */
export function interpretProbe(
  raw: FfprobeOutput,
  fileName: string,
  filesize: number,
  md5: string,
): ProbeResult {
  const stream = raw.streams?.find((s) => s.codec_type === 'audio');
  if (!stream) throw new MediaError('no_audio', undefined, { format: raw.format?.format_name });
  const detected = typeFromProbe(raw.format?.format_name ?? '', stream.codec_name ?? '');
  if (!detected) {
    throw new MediaError('unsupported_format', undefined, {
      format: raw.format?.format_name,
      codec: stream.codec_name,
    });
  }
  const claimed = typeFromExtension(fileName);
  // A name like song.opus or notes.txt says the user sent something we do not take, whatever ffmpeg
  // can make of it; a name without an extension (a stored upload) is judged by its content alone.
  if (!claimed && extensionOf(fileName) !== '') {
    throw new MediaError('unsupported_format', undefined, { extension: extensionOf(fileName), detected });
  }
  if (claimed && containerOfType(claimed) !== detected) {
    throw new MediaError(
      'wrong_extension',
      `It is named .${extensionOf(fileName)} but contains ${detected} audio.`,
      {
        detected,
      },
    );
  }
  const type = typeOfContainer(detected, claimed);
  const samplerate = positive(stream.sample_rate) ?? 0;
  const channels = stream.channels ?? 0;
  if (samplerate === 0 || channels === 0) throw new MediaError('corrupt_file', undefined, { stream });
  // Refused here, where the reason can still be told plainly and no retry follows (a 400 is a
  // permanent job failure): ffmpeg cannot mix a file of more channels down to the previews' two.
  if (channels > MAX_CHANNELS) {
    throw new MediaError('too_many_channels', `It has ${channels}; at most ${MAX_CHANNELS} are accepted.`, {
      channels,
    });
  }
  const duration = positive(stream.duration) ?? positive(raw.format?.duration);
  if (duration === undefined)
    throw new MediaError('no_audio', 'Its audio has no length.', { format: raw.format });
  return {
    type,
    duration,
    samplerate,
    channels,
    bitdepth: bitDepthOf(type, stream),
    bitrate: estimateBitrate(type, filesize, duration),
    filesize,
    md5,
    codec: stream.codec_name ?? '',
    streamIndex: stream.index,
    raw,
  };
}

/**
 * Probes a file once: type, duration, rate, channels, depth, bitrate, size, md5, and ffprobe's raw
 * output so that nothing re-probes a stored file.
 */
export async function probeFile(file: string, options: ProbeOptions = {}): Promise<ProbeResult> {
  const stat = await fs.stat(file);
  if (stat.size === 0) throw new MediaError('empty_file');
  const fileName = options.fileName ?? path.basename(file);
  const [digests, raw] = await Promise.all([
    options.md5 === false
      ? { md5: '' }
      : options.md5 !== undefined
        ? { md5: options.md5 }
        : fileDigests(file),
    runProbe(options.ffmpeg ?? defaultFfmpeg(), file, fileName, options.timeoutMs),
  ]);
  const probe = interpretProbe(raw, fileName, stat.size, digests.md5);
  if ('crc32' in digests) probe.crc32 = digests.crc32;
  if (!options.partial) {
    checkDuration(probe.duration, options.maxDuration);
    await checkProbedLength(file, probe);
  }
  return probe;
}

/** The length check `probeFile` makes, for a file probed while partial and now whole. */
export async function checkProbedLength(file: string, probe: Pick<ProbeResult, 'type'>): Promise<void> {
  if (probe.type === 'wav' || probe.type === 'aif' || probe.type === 'aiff')
    await checkPcmLength(file, (await fs.stat(file)).size);
}

/** A WAV/AIFF whose data chunk promises more than the file holds was cut off (or lies): refuse it. */
async function checkPcmLength(file: string, filesize: number): Promise<void> {
  const chunk = await readPcmDataChunk(file, filesize);
  if (!chunk) return;
  if (chunk.presentBytes === 0) throw new MediaError('no_audio', undefined, chunk);
  if (chunk.declaredBytes > chunk.presentBytes + 1) {
    const percent = Math.floor((100 * chunk.presentBytes) / chunk.declaredBytes);
    const share = percent < 1 ? 'less than 1%' : `only ${percent}%`;
    throw new MediaError(
      'corrupt_file',
      `Its header promises more audio than it holds (${share} is there).`,
      chunk,
    );
  }
}

async function runProbe(
  ffmpeg: Ffmpeg,
  file: string,
  fileName: string,
  timeoutMs = 60_000,
): Promise<FfprobeOutput> {
  try {
    const { stdout } = await ffmpeg.run('ffprobe', probeArgs(file), { timeoutMs });
    return JSON.parse(stdout.toString('utf8')) as FfprobeOutput;
  } catch (err) {
    if (err instanceof FfmpegProcessError) {
      if (err.timedOut) throw new MediaError('timeout', undefined, { stderr: err.stderrTail });
      // ffprobe found no container it knows: garbage under an audio name is damaged, under any other name unsupported.
      const code = typeFromExtension(fileName) ? 'corrupt_file' : 'unsupported_format';
      throw new MediaError(code, undefined, { stderr: err.stderrTail });
    }
    throw err;
  }
}
