/**
 * How much of a chunk of FLAC or Ogg may go to a decoder that is to yield no more than `budget`
 * more frames. Such files can store a frame of silence in a few bytes (an hour of it in a few
 * kilobytes), so a decoder fed a fixed 64 KB yields hours of audio at once, allocated before it can
 * be cut. Before a chunk is fed, the frames (FLAC) or packets (Ogg) that start in it are counted
 * from their headers and the chunk is cut before the first one past the budget: the decoder never
 * yields much more than asked for, whatever the file holds.
 *
 * The count errs on the high side only: a false sync inside audio data counts a frame that is not
 * there (the chunk is cut early and the rest is read next time), and a header that does not fit in
 * the chunk ends it. The first frame is always fed, so every call makes progress.
 */

/** Bytes of `chunk` to feed (0 < result <= chunk.length, unless the chunk is empty). */
export function feedableBytes(codec: 'flac' | 'ogg', chunk: Buffer, budget: number): number {
  return codec === 'flac' ? flacFeedable(chunk, budget) : oggFeedable(chunk, budget);
}

/** The longest FLAC frame header: sync, 2 bytes, 7-byte coded number, 2 + 2 bytes, CRC-8. */
const FLAC_HEADER_MAX = 16;

function flacFeedable(chunk: Buffer, budget: number): number {
  let counted = 0;
  let frames = 0;
  for (let at = chunk.indexOf(0xff); at >= 0; at = chunk.indexOf(0xff, at + 1)) {
    if (at + 1 < chunk.length && (chunk[at + 1] & 0xfe) !== 0xf8) continue;
    const samples =
      at + FLAC_HEADER_MAX <= chunk.length ? flacFrameSamples(chunk, at) : Number.POSITIVE_INFINITY;
    if (samples === 0) continue;
    // A frame that would pass the budget (or whose header runs past the chunk) starts the next feed.
    if (frames > 0 && counted + samples > budget) return at;
    counted += samples;
    frames++;
  }
  return chunk.length;
}

/** The block size a valid FLAC frame header at `at` states, or 0 when the bytes are no header. */
function flacFrameSamples(b: Buffer, at: number): number {
  const blockCode = b[at + 2] >> 4;
  const rateCode = b[at + 2] & 0x0f;
  const channelCode = b[at + 3] >> 4;
  if (blockCode === 0 || rateCode === 0x0f || channelCode > 10 || (b[at + 3] & 0x01) !== 0) return 0;
  // The frame or sample number, UTF-8 coded: 1 to 7 bytes.
  let p = at + 4;
  const lead = b[p];
  let extra = 0;
  if (lead >= 0x80) {
    if ((lead & 0xe0) === 0xc0) extra = 1;
    else if ((lead & 0xf0) === 0xe0) extra = 2;
    else if ((lead & 0xf8) === 0xf0) extra = 3;
    else if ((lead & 0xfc) === 0xf8) extra = 4;
    else if ((lead & 0xfe) === 0xfc) extra = 5;
    else if (lead === 0xfe) extra = 6;
    else return 0;
  }
  for (let i = 1; i <= extra; i++) if ((b[p + i] & 0xc0) !== 0x80) return 0;
  p += 1 + extra;
  let samples: number;
  if (blockCode === 1) samples = 192;
  else if (blockCode <= 5) samples = 576 << (blockCode - 2);
  else if (blockCode === 6) samples = b[p++] + 1;
  else if (blockCode === 7) {
    samples = b.readUInt16BE(p) + 1;
    p += 2;
  } else samples = 256 << (blockCode - 8);
  if (rateCode === 12) p += 1;
  else if (rateCode === 13 || rateCode === 14) p += 2;
  return crc8(b, at, p) === b[p] ? samples : 0;
}

/** FLAC's header CRC-8 (polynomial x^8 + x^2 + x + 1, initial 0) of `b[from, to)`. */
function crc8(b: Buffer, from: number, to: number): number {
  let crc = 0;
  for (let i = from; i < to; i++) {
    crc ^= b[i];
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x80 ? ((crc << 1) ^ 0x07) & 0xff : (crc << 1) & 0xff;
  }
  return crc;
}

/**
 * The most frames one Ogg packet decodes to: an Opus packet holds at most 120 ms (5760 frames at
 * 48 kHz), a Vorbis packet at most half its largest block (4096 frames).
 */
const OGG_PACKET_FRAMES = 5760;
const OGG_PAGE_HEADER = 27;

function oggFeedable(chunk: Buffer, budget: number): number {
  let counted = 0;
  let pages = 0;
  for (let at = chunk.indexOf('OggS'); at >= 0; at = chunk.indexOf('OggS', at + 4)) {
    let packets = Number.POSITIVE_INFINITY;
    if (at + OGG_PAGE_HEADER <= chunk.length) {
      const segments = chunk[at + 26];
      if (at + OGG_PAGE_HEADER + segments <= chunk.length) {
        // A lacing value under 255 ends a packet.
        packets = 0;
        for (let i = 0; i < segments; i++) if (chunk[at + OGG_PAGE_HEADER + i] < 255) packets++;
      }
    }
    const frames = packets * OGG_PACKET_FRAMES;
    if (pages > 0 && counted + frames > budget) return at;
    counted += frames;
    pages++;
  }
  return chunk.length;
}
