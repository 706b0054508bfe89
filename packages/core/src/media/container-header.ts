import fs from 'node:fs/promises';

export interface PcmDataChunk {
  /** Bytes of audio the header declares. */
  declaredBytes: number;
  /** Bytes of audio actually present after the chunk header. */
  presentBytes: number;
}

const HEADER_BYTES = 64 * 1024;
/** Streaming writers put these in the size field when they do not know the length yet. */
const UNKNOWN_SIZES = new Set([0, 0xffffffff]);

/**
 * Finds the audio data chunk of a WAV (RIFF `data`) or AIFF (FORM `SSND`) header, pure, from the
 * first bytes of the file and its size. ffprobe silently trusts the file size over the header, so
 * this is how a cut-off or lying PCM file is told apart from a short one.
 */
export function findPcmDataChunk(head: Buffer, filesize: number): PcmDataChunk | undefined {
  const magic = head.toString('latin1', 0, 4);
  const form = head.toString('latin1', 8, 12);
  const bigEndian = magic === 'FORM';
  if (!((magic === 'RIFF' && form === 'WAVE') || (bigEndian && (form === 'AIFF' || form === 'AIFC'))))
    return undefined;
  const dataId = bigEndian ? 'SSND' : 'data';
  let offset = 12;
  while (offset + 8 <= head.length) {
    const id = head.toString('latin1', offset, offset + 4);
    const size = bigEndian ? head.readUInt32BE(offset + 4) : head.readUInt32LE(offset + 4);
    if (id === dataId) {
      if (UNKNOWN_SIZES.has(size)) return undefined;
      // SSND starts with 8 bytes of offset and block size before the sound data.
      const skip = bigEndian ? 8 : 0;
      return { declaredBytes: size - skip, presentBytes: Math.max(0, filesize - offset - 8 - skip) };
    }
    offset += 8 + size + (size % 2);
  }
  return undefined;
}

export async function readPcmDataChunk(file: string, filesize: number): Promise<PcmDataChunk | undefined> {
  const handle = await fs.open(file, 'r');
  try {
    const head = Buffer.alloc(Math.min(HEADER_BYTES, filesize));
    await handle.read(head, 0, head.length, 0);
    return findPcmDataChunk(head, filesize);
  } finally {
    await handle.close();
  }
}
