/**
 * Pure readers of what compressed files say about themselves in their first bytes: which codec,
 * the sample rate, and the whole length (so a clip cut to its first 30 s still reports the length
 * of the upload, without ffprobe and without decoding the rest).
 */

import { flacStreamInfo } from '../container-headers.ts';

export interface StreamHeader {
  sampleRate: number;
  /** Seconds, when the header states it. */
  duration: number | undefined;
}

/** FLAC's STREAMINFO block, which must come first. */
export function readFlacStreamInfo(head: Buffer): StreamHeader | undefined {
  const info = flacStreamInfo(head);
  if (!info || info.sampleRate === 0) return undefined;
  const { sampleRate, totalSamples } = info;
  return { sampleRate, duration: totalSamples > 0 ? totalSamples / sampleRate : undefined };
}

/** An Ogg page at `at` whose segment table and body lie wholly within `buf`. */
function pageFits(buf: Buffer, at: number): boolean {
  const segments = buf[at + 26];
  if (at + 27 + segments > buf.length) return false;
  let body = 0;
  for (let i = 0; i < segments; i++) body += buf[at + 27 + i];
  return at + 27 + segments + body <= buf.length;
}

export interface OggHeader extends StreamHeader {
  codec: 'vorbis' | 'opus';
}

/**
 * An Ogg file whose first packet is a Vorbis or Opus identification header; the length is the
 * granule position of the stream's last page found in `tail` (the file's last bytes), in samples
 * (Opus: at 48 kHz, less the pre-skip its decoders drop).
 */
export function oggHeader(head: Buffer, tail: Buffer): OggHeader | undefined {
  if (head.length < 58 || head.toString('latin1', 0, 4) !== 'OggS') return undefined;
  const serial = head.readUInt32LE(14);
  const packet = 27 + head[26];
  if (head.length < packet + 19) return undefined;
  let codec: OggHeader['codec'];
  let sampleRate: number;
  let preSkip = 0;
  if (head.toString('latin1', packet, packet + 7) === '\x01vorbis') {
    codec = 'vorbis';
    sampleRate = head.readUInt32LE(packet + 12);
  } else if (head.toString('latin1', packet, packet + 8) === 'OpusHead') {
    codec = 'opus';
    // Opus always decodes at 48 kHz, whatever rate the header says the source had.
    sampleRate = 48_000;
    preSkip = head.readUInt16LE(packet + 10);
  } else return undefined;
  if (sampleRate === 0) return undefined;
  let duration: number | undefined;
  let isLast = true;
  for (let at = tail.lastIndexOf('OggS'); at >= 0; at = at > 0 ? tail.lastIndexOf('OggS', at - 1) : -1) {
    if (at + 27 > tail.length) return undefined;
    if (tail.readUInt32LE(at + 14) !== serial) continue;
    // The last page must end where the file ends: one cut short means the file was cut off.
    if (isLast && !pageFits(tail, at)) return undefined;
    isLast = false;
    const granule = tail.readBigInt64LE(at + 6);
    if (granule < 0n) continue;
    duration = Math.max(0, Number(granule) - preSkip) / sampleRate;
    break;
  }
  return { codec, sampleRate, duration };
}

const MPEG1_L3_KBPS = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const MPEG2_L3_KBPS = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
const MPEG1_RATES = [44_100, 48_000, 32_000];

interface Mp3Frame {
  sampleRate: number;
  kbps: number;
  samplesPerFrame: number;
  bytes: number;
  mono: boolean;
  mpeg1: boolean;
}

/** An MPEG-1/2/2.5 Layer III frame header at `at` (other layers are not the contract's mp3). */
export function mp3Frame(buf: Buffer, at: number): Mp3Frame | undefined {
  if (at + 4 > buf.length || buf[at] !== 0xff || (buf[at + 1] & 0xe0) !== 0xe0) return undefined;
  const version = (buf[at + 1] >> 3) & 3;
  const layer = (buf[at + 1] >> 1) & 3;
  const bitrateIndex = buf[at + 2] >> 4;
  const rateIndex = (buf[at + 2] >> 2) & 3;
  if (version === 1 || layer !== 1 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3)
    return undefined;
  const mpeg1 = version === 3;
  const sampleRate = MPEG1_RATES[rateIndex] / (mpeg1 ? 1 : version === 2 ? 2 : 4);
  const kbps = (mpeg1 ? MPEG1_L3_KBPS : MPEG2_L3_KBPS)[bitrateIndex];
  const samplesPerFrame = mpeg1 ? 1152 : 576;
  const padding = (buf[at + 2] >> 1) & 1;
  const bytes = Math.floor(((samplesPerFrame / 8) * kbps * 1000) / sampleRate) + padding;
  return { sampleRate, kbps, samplesPerFrame, bytes, mono: buf[at + 3] >> 6 === 3, mpeg1 };
}

/** Bytes of an ID3v2 tag at the start of the file (0 when there is none). */
export function id3Length(head: Buffer): number {
  if (head.length < 10 || head.toString('latin1', 0, 3) !== 'ID3') return 0;
  const size =
    ((head[6] & 0x7f) << 21) | ((head[7] & 0x7f) << 14) | ((head[8] & 0x7f) << 7) | (head[9] & 0x7f);
  return 10 + size + (head[5] & 0x10 ? 10 : 0);
}

/**
 * An MP3 stream: `frames` holds the file's bytes from its first frame on (after any ID3v2 tag) and
 * `audioBytes` counts them to the end of the file. The first frame must be confirmed by the frame
 * that follows; the length comes from the Xing/Info frame count (less LAME's encoder delay and
 * padding), or else from the first frame's bitrate as ffprobe estimates a constant-bitrate file.
 */
export function mp3Header(head: Buffer, audioBytes: number): StreamHeader | undefined {
  const frame = mp3Frame(head, 0);
  if (!frame) return undefined;
  const next = mp3Frame(head, frame.bytes);
  if (frame.bytes + 4 <= Math.min(head.length, audioBytes) && next?.sampleRate !== frame.sampleRate)
    return undefined;
  const sideInfo = frame.mpeg1 ? (frame.mono ? 17 : 32) : frame.mono ? 9 : 17;
  const xing = 4 + sideInfo;
  const tag = head.toString('latin1', xing, xing + 4);
  if ((tag === 'Xing' || tag === 'Info') && xing + 16 <= head.length) {
    const flags = head.readUInt32BE(xing + 4);
    if (flags & 1) {
      const frames = head.readUInt32BE(xing + 8);
      const lame =
        xing + 8 + (flags & 1 ? 4 : 0) + (flags & 2 ? 4 : 0) + (flags & 4 ? 100 : 0) + (flags & 8 ? 4 : 0);
      let trimmed = 0;
      if (lame + 24 <= head.length && /^[A-Za-z]{4}/.test(head.toString('latin1', lame, lame + 4))) {
        const gap = head.readUIntBE(lame + 21, 3);
        trimmed = (gap >> 12) + (gap & 0xfff);
      }
      const samples = frames * frame.samplesPerFrame - trimmed;
      if (samples > 0) return { sampleRate: frame.sampleRate, duration: samples / frame.sampleRate };
    }
  }
  return { sampleRate: frame.sampleRate, duration: (audioBytes * 8) / (frame.kbps * 1000) };
}
