import fs from 'node:fs/promises';
import { chunks, extended80, flacStreamInfo } from './container-headers.ts';
import {
  type Container,
  containerOfType,
  extensionOf,
  type SoundType,
  typeFromExtension,
  typeOfContainer,
} from './formats.ts';
import { MAX_CHANNELS } from './probe.ts';

/**
 * What the first bytes of an uncompressed or FLAC file prove about it, read without ffprobe.
 *
 * Why: an upload is judged (audio we take or not) while it streams in, and for the common
 * lossless containers the answer is written plainly in the header. Starting ffprobe for it costs a
 * process start (tens of ms of CPU beside the transfer on a two-core machine) to learn the same.
 * This reader only ever says yes: a header it does not fully understand (a codec other than plain
 * PCM or float, an unknown length, a name that disagrees with the content, odd values) gets
 * `undefined`, and the caller asks ffprobe, whose refusals keep their wording. The pipeline probes
 * every stored file with ffprobe again, so what this accepts is still read by ffmpeg before it is
 * processed.
 */
export interface HeaderProbe {
  type: SoundType;
  samplerate: number;
  channels: number;
  bitdepth: number;
  /** Seconds, as the header states them (frames over rate). */
  duration: number;
}

/** Enough for the chunks that precede the audio in files written by the usual tools. */
export const HEADER_PROBE_BYTES = 64 * 1024;

/** Rates ffmpeg and the pipeline handle without surprise; anything else is left to ffprobe. */
const MIN_RATE = 1000;
const MAX_RATE = 768_000;
/** Streaming writers put these in a size field when they do not know the length yet. */
const UNKNOWN_SIZES = new Set([0, 0xffffffff]);
/** The tail shared by the WAVE_FORMAT_EXTENSIBLE sub-format GUIDs of PCM and float. */
const KS_GUID_TAIL = Buffer.from([0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71]);

interface Stream {
  detected: Extract<Container, 'wav' | 'aiff' | 'flac'>;
  samplerate: number;
  channels: number;
  bitdepth: number;
  /** Sample frames the header states. */
  frames: number;
}

/** Pure: the verdict on a file's first bytes, named `fileName` by its uploader. */
export function probeHeader(head: Buffer, fileName: string): HeaderProbe | undefined {
  const stream = wavStream(head) ?? aiffStream(head) ?? flacStream(head);
  if (!stream) return undefined;
  if (stream.channels < 1 || stream.channels > MAX_CHANNELS) return undefined;
  if (!(stream.samplerate >= MIN_RATE && stream.samplerate <= MAX_RATE)) return undefined;
  // The same naming rules as interpretProbe; a disagreement is ffprobe's to word.
  const claimed = typeFromExtension(fileName);
  if (!claimed && extensionOf(fileName) !== '') return undefined;
  if (claimed && containerOfType(claimed) !== stream.detected) return undefined;
  const type = typeOfContainer(stream.detected, claimed);
  const { samplerate, channels, bitdepth, frames } = stream;
  return { type, samplerate, channels, bitdepth, duration: frames / samplerate };
}

/** Reads a file's first bytes and judges them (`probeHeader`); undefined: ask ffprobe. */
export async function probeFileHeader(file: string, fileName: string): Promise<HeaderProbe | undefined> {
  const handle = await fs.open(file, 'r');
  try {
    const head = Buffer.alloc(HEADER_PROBE_BYTES);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return probeHeader(head.subarray(0, bytesRead), fileName);
  } finally {
    await handle.close();
  }
}

/** RIFF/WAVE with a `fmt ` of integer PCM or float, then a `data` chunk of known, non-zero size. */
function wavStream(head: Buffer): Stream | undefined {
  if (
    head.length < 12 ||
    head.toString('latin1', 0, 4) !== 'RIFF' ||
    head.toString('latin1', 8, 12) !== 'WAVE'
  )
    return undefined;
  let format: Stream | undefined;
  for (const { id, size, body } of chunks(head, false)) {
    if (id === 'fmt ') {
      if (format || size < 16 || body + size > head.length) return undefined;
      format = wavFormat(head.subarray(body, body + size));
      if (!format) return undefined;
    } else if (id === 'data') {
      const frameBytes = format ? format.channels * (format.bitdepth / 8) : 0;
      return format && !UNKNOWN_SIZES.has(size) && size >= frameBytes
        ? { ...format, frames: Math.floor(size / frameBytes) }
        : undefined;
    }
  }
  return undefined;
}

function wavFormat(fmt: Buffer): Stream | undefined {
  let tag = fmt.readUInt16LE(0);
  const channels = fmt.readUInt16LE(2);
  const samplerate = fmt.readUInt32LE(4);
  const byteRate = fmt.readUInt32LE(8);
  const blockAlign = fmt.readUInt16LE(12);
  const bits = fmt.readUInt16LE(14);
  if (tag === 0xfffe) {
    // WAVE_FORMAT_EXTENSIBLE: the real format is the sub-format GUID's first field.
    if (fmt.length < 40 || fmt.readUInt16LE(16) < 22 || !fmt.subarray(28, 40).equals(KS_GUID_TAIL))
      return undefined;
    tag = fmt.readUInt32LE(24);
  }
  const pcm = tag === 1 && (bits === 8 || bits === 16 || bits === 24 || bits === 32);
  const float = tag === 3 && (bits === 32 || bits === 64);
  if (!pcm && !float) return undefined;
  if (blockAlign !== channels * (bits / 8) || byteRate !== samplerate * blockAlign) return undefined;
  return { detected: 'wav', samplerate, channels, bitdepth: bits, frames: 0 };
}

/** FORM/AIFF (or AIFC without compression) with a `COMM` then an `SSND` chunk of known size. */
function aiffStream(head: Buffer): Stream | undefined {
  if (head.length < 12 || head.toString('latin1', 0, 4) !== 'FORM') return undefined;
  const form = head.toString('latin1', 8, 12);
  if (form !== 'AIFF' && form !== 'AIFC') return undefined;
  let format: Stream | undefined;
  for (const { id, size, body } of chunks(head, true)) {
    if (id === 'COMM') {
      if (format || body + size > head.length) return undefined;
      format = aiffCommon(head.subarray(body, body + size), form === 'AIFC');
      if (!format) return undefined;
    } else if (id === 'SSND') {
      // SSND opens with 8 bytes of offset and block size before the samples.
      return format && !UNKNOWN_SIZES.has(size) && size > 8 ? format : undefined;
    }
  }
  return undefined;
}

function aiffCommon(comm: Buffer, compressed: boolean): Stream | undefined {
  if (comm.length < (compressed ? 22 : 18)) return undefined;
  const channels = comm.readInt16BE(0);
  const frames = comm.readUInt32BE(2);
  const bits = comm.readInt16BE(6);
  const samplerate = extended80(comm, 8);
  if (compressed) {
    // Big-endian ('NONE') or little-endian ('sowt') integer PCM; anything else is a codec.
    const kind = comm.toString('latin1', 18, 22);
    if (kind !== 'NONE' && kind !== 'sowt') return undefined;
  }
  if (frames === 0 || !(bits === 8 || bits === 16 || bits === 24 || bits === 32)) return undefined;
  if (!Number.isInteger(samplerate)) return undefined;
  return { detected: 'aiff', samplerate, channels, bitdepth: bits, frames };
}

/** `fLaC` with its STREAMINFO block first, stating the sample count. */
function flacStream(head: Buffer): Stream | undefined {
  // Marker, block header (type 0 = STREAMINFO, length 34), then the 34 bytes of the block.
  if (head.length < 42) return undefined;
  const info = flacStreamInfo(head);
  if (info?.blockLength !== 34) return undefined;
  const { minBlock, maxBlock, totalSamples, bits } = info;
  if (minBlock < 16 || maxBlock < minBlock || totalSamples === 0 || bits < 4) return undefined;
  return {
    detected: 'flac',
    samplerate: info.sampleRate,
    channels: info.channels,
    bitdepth: bits,
    frames: totalSamples,
  };
}
