import type { Container } from '../formats.ts';

/** A clip file read by byte ranges (the decoders never need it whole). */
export interface ClipSource {
  size: number;
  /** Up to `length` bytes from `offset` (fewer at the end of the file). */
  read(offset: number, length: number): Promise<Buffer>;
}

/** What an in-process decoder hands back: the clip's first seconds, per channel. */
export interface DecodedChannels {
  /** The container, as `typeFromProbe` names it; m4a is left to ffmpeg. */
  type: Exclude<Container, 'm4a'>;
  /** Per channel, or already mixed down to one (the compressed decoders mix as they collect). */
  channelData: Float32Array[];
  sampleRate: number;
  /** The whole file's duration in seconds, from its headers (or the decode when it went to the end). */
  duration: number;
}
