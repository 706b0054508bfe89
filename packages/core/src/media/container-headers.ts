/**
 * The few container facts that both the upload's header check (`header-probe.ts`) and the clip
 * decoder (`clip-decode/`) read from a file's first bytes: RIFF/IFF chunks, AIFF's 80-bit sample
 * rate and FLAC's STREAMINFO. Each caller keeps its own rules on what it accepts; these only read.
 */

export interface Chunk {
  id: string;
  size: number;
  /** Where the chunk's body starts in the buffer. */
  body: number;
}

/**
 * The chunks of a RIFF (little-endian sizes) or FORM (big-endian) file after its 12-byte header,
 * as far as their headers lie in `head`; bodies are padded to even lengths.
 */
export function* chunks(head: Buffer, bigEndian: boolean): Generator<Chunk> {
  for (let at = 12; at + 8 <= head.length; ) {
    const size = bigEndian ? head.readUInt32BE(at + 4) : head.readUInt32LE(at + 4);
    const body = at + 8;
    yield { id: head.toString('latin1', at, at + 4), size, body };
    at = body + size + (size % 2);
  }
}

/** An IEEE 754 80-bit extended number at `at` (AIFF's sample rate); NaN when negative or not finite. */
export function extended80(b: Buffer, at = 0): number {
  if (b[at] & 0x80) return Number.NaN;
  const exponent = ((b[at] & 0x7f) << 8) | b[at + 1];
  if (exponent === 0x7fff) return Number.NaN;
  const mantissa = b.readUInt32BE(at + 2) * 2 ** 32 + b.readUInt32BE(at + 6);
  return mantissa * 2 ** (exponent - 16383 - 63);
}

export interface FlacStreamInfo {
  /** The length its metadata block header states (34 for a well-formed STREAMINFO). */
  blockLength: number;
  minBlock: number;
  maxBlock: number;
  sampleRate: number;
  channels: number;
  bits: number;
  /** 0 when the encoder did not know it. */
  totalSamples: number;
}

/** `fLaC` followed by its first metadata block, which must be STREAMINFO (type 0). */
export function flacStreamInfo(head: Buffer): FlacStreamInfo | undefined {
  if (head.length < 26 || head.toString('latin1', 0, 4) !== 'fLaC' || (head[4] & 0x7f) !== 0)
    return undefined;
  return {
    blockLength: head.readUIntBE(5, 3),
    minBlock: head.readUInt16BE(8),
    maxBlock: head.readUInt16BE(10),
    sampleRate: (head[18] << 12) | (head[19] << 4) | (head[20] >> 4),
    channels: ((head[20] >> 1) & 0x07) + 1,
    bits: (((head[20] & 0x01) << 4) | (head[21] >> 4)) + 1,
    totalSamples: (head[21] & 0x0f) * 2 ** 32 + head.readUInt32BE(22),
  };
}
