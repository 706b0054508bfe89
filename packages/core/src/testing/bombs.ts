import fs from 'node:fs';
import { flacStreamInfo } from '../media/container-headers.ts';
import { synth } from './audio.ts';

/**
 * Decompression bombs for tests: long silence in FLAC frames of the largest block size, a few bytes
 * each (an hour of 44.1 kHz mono is 42 KB), made by the real ffmpeg, never committed.
 */
export function silenceFlac(file: string, seconds: number, sampleRate = 44_100): string {
  return synth(file, `anullsrc=r=${sampleRate}:cl=mono`, [
    '-t',
    String(seconds),
    '-c:a',
    'flac',
    '-frame_size',
    '65535',
  ]);
}

/**
 * Rewrites a FLAC's STREAMINFO to state `seconds` of audio, leaving the frames as they are: a header
 * that lies about a longer stream (ffprobe and every reader of the header believe it; a decoder
 * reads on to the last frame).
 */
export function understateFlacLength(file: string, seconds: number): string {
  const bytes = fs.readFileSync(file);
  const info = flacStreamInfo(bytes);
  if (!info) throw new Error(`${file} is not a FLAC file with STREAMINFO first`);
  const total = Math.round(seconds * info.sampleRate);
  // 36 bits from the low nibble of byte 21 on; STREAMINFO's MD5 (bytes 26-41) is left stale, as
  // ffmpeg does not check it.
  bytes[21] = (bytes[21] & 0xf0) | Math.floor(total / 2 ** 32);
  bytes.writeUInt32BE(total % 2 ** 32, 22);
  fs.writeFileSync(file, bytes);
  return file;
}
