import { chunks, extended80 } from '../container-headers.ts';
import type { ClipSource, DecodedChannels } from './types.ts';

/**
 * WAV and AIFF read directly: integer PCM of 8–32 bits and float PCM, the layouts ffmpeg's own
 * converters handle the same way (ints scaled by 2^(bits-1), unsigned 8-bit centred on 128). Any
 * other codec (ADPCM, GSM, mp3-in-wav…), a header that promises more than the file holds, or a
 * header of unknown length answers undefined: ffmpeg decodes those (and words the refusal).
 */

interface PcmLayout {
  sampleRate: number;
  channels: number;
  bits: number;
  float: boolean;
  bigEndian: boolean;
  dataOffset: number;
  dataBytes: number;
}

const HEADER_BYTES = 64 * 1024;
const UNKNOWN_SIZES = new Set([0, 0xffffffff]);
const MAX_CHANNELS = 24;

/** The WAVE_FORMAT_EXTENSIBLE sub-format GUID's tail, shared by PCM (1) and float (3). */
const GUID_TAIL = '000000001000800000aa00389b71';

function wavLayout(head: Buffer, filesize: number): PcmLayout | undefined {
  let fmt: Omit<PcmLayout, 'dataOffset' | 'dataBytes'> | undefined;
  for (const { id, size, body } of chunks(head, false)) {
    if (id === 'fmt ' && body + 16 <= head.length) {
      let tag = head.readUInt16LE(body);
      if (tag === 0xfffe) {
        if (size < 40 || body + 40 > head.length) return undefined;
        if (head.toString('hex', body + 26, body + 40) !== GUID_TAIL) return undefined;
        tag = head.readUInt16LE(body + 24);
      }
      if (tag !== 1 && tag !== 3) return undefined;
      fmt = {
        channels: head.readUInt16LE(body + 2),
        sampleRate: head.readUInt32LE(body + 4),
        bits: head.readUInt16LE(body + 14),
        float: tag === 3,
        bigEndian: false,
      };
    } else if (id === 'data') {
      if (!fmt || UNKNOWN_SIZES.has(size) || body + size > filesize) return undefined;
      return { ...fmt, dataOffset: body, dataBytes: size };
    }
  }
  return undefined;
}

function aiffLayout(head: Buffer, filesize: number, aifc: boolean): PcmLayout | undefined {
  let comm: Omit<PcmLayout, 'dataOffset' | 'dataBytes'> | undefined;
  for (const { id, size, body } of chunks(head, true)) {
    if (id === 'COMM' && body + 18 <= head.length) {
      let bits = head.readUInt16BE(body + 6);
      let float = false;
      let bigEndian = true;
      if (aifc) {
        const compression = head.toString('latin1', body + 18, body + 22);
        if (compression === 'sowt') bigEndian = false;
        else if (compression === 'fl32' || compression === 'FL32') [float, bits] = [true, 32];
        else if (compression === 'fl64' || compression === 'FL64') [float, bits] = [true, 64];
        else if (compression !== 'NONE') return undefined;
      }
      comm = {
        channels: head.readUInt16BE(body),
        bits,
        sampleRate: extended80(head, body + 8),
        float,
        bigEndian,
      };
    } else if (id === 'SSND') {
      if (!comm || UNKNOWN_SIZES.has(size) || body + 8 > head.length) return undefined;
      const start = body + 8 + head.readUInt32BE(body);
      const bytes = size - 8 - head.readUInt32BE(body);
      if (bytes <= 0 || start + bytes > filesize) return undefined;
      return { ...comm, dataOffset: start, dataBytes: bytes };
    }
  }
  return undefined;
}

export function pcmLayout(head: Buffer, filesize: number): PcmLayout | undefined {
  const magic = head.toString('latin1', 0, 4);
  const form = head.toString('latin1', 8, 12);
  let layout: PcmLayout | undefined;
  if (magic === 'RIFF' && form === 'WAVE') layout = wavLayout(head, filesize);
  else if (magic === 'FORM' && (form === 'AIFF' || form === 'AIFC'))
    layout = aiffLayout(head, filesize, form === 'AIFC');
  if (!layout) return undefined;
  const { channels, sampleRate, bits, float } = layout;
  const intOk = !float && (bits === 8 || bits === 16 || bits === 24 || bits === 32);
  const floatOk = float && (bits === 32 || bits === 64);
  if (channels < 1 || channels > MAX_CHANNELS || sampleRate < 1 || !(intOk || floatOk)) return undefined;
  // AIFF's 8-bit is signed, WAV's unsigned; a sample rate that is not whole is left to ffmpeg.
  if (!Number.isInteger(sampleRate)) return undefined;
  return layout;
}

function sampleReader(layout: PcmLayout): (buf: Buffer, at: number) => number {
  const { bits, float, bigEndian } = layout;
  if (float) {
    if (bits === 32) return bigEndian ? (b, at) => b.readFloatBE(at) : (b, at) => b.readFloatLE(at);
    return bigEndian ? (b, at) => b.readDoubleBE(at) : (b, at) => b.readDoubleLE(at);
  }
  switch (bits) {
    case 8:
      return bigEndian ? (b, at) => b.readInt8(at) / 128 : (b, at) => (b[at] - 128) / 128;
    case 16:
      return bigEndian ? (b, at) => b.readInt16BE(at) / 32768 : (b, at) => b.readInt16LE(at) / 32768;
    case 24:
      return bigEndian ? (b, at) => b.readIntBE(at, 3) / 8388608 : (b, at) => b.readIntLE(at, 3) / 8388608;
    default:
      return bigEndian
        ? (b, at) => b.readInt32BE(at) / 2147483648
        : (b, at) => b.readInt32LE(at) / 2147483648;
  }
}

/** Reads the first `maxSeconds` of a WAV/AIFF file, or undefined when ffmpeg should decode it. */
export async function decodePcm(
  source: ClipSource,
  maxSeconds: number,
): Promise<DecodedChannels | undefined> {
  const head = await source.read(0, Math.min(HEADER_BYTES, source.size));
  const layout = pcmLayout(head, source.size);
  if (!layout) return undefined;
  const frameBytes = (layout.bits / 8) * layout.channels;
  const totalFrames = Math.floor(layout.dataBytes / frameBytes);
  if (totalFrames === 0) return undefined;
  const frames = Math.min(totalFrames, Math.round(maxSeconds * layout.sampleRate));
  const data = await source.read(layout.dataOffset, frames * frameBytes);
  const read = sampleReader(layout);
  const step = layout.bits / 8;
  const channelData = Array.from({ length: layout.channels }, () => new Float32Array(frames));
  for (let c = 0; c < layout.channels; c++) {
    const out = channelData[c];
    for (let i = 0, at = c * step; i < frames; i++, at += frameBytes) out[i] = read(data, at);
  }
  return {
    type: head.toString('latin1', 0, 4) === 'FORM' ? 'aiff' : 'wav',
    channelData,
    sampleRate: layout.sampleRate,
    duration: totalFrames / layout.sampleRate,
  };
}
