import type { Container } from '../formats.ts';
import { feedableBytes } from './feed-limit.ts';
import { id3Length, mp3Header, oggHeader, readFlacStreamInfo } from './headers.ts';
import { mixInto } from './mix.ts';
import { monoSink, releaseMpegDecoder, takeMpegDecoder } from './mpeg.ts';
import type { ClipSource, DecodedChannels } from './types.ts';

/**
 * MP3, FLAC, Ogg Vorbis and Ogg Opus decoded in this thread by the WebAssembly builds of mpg123,
 * libFLAC, libvorbis and libopus (the `*-decoder` npm packages), fed the file in chunks until the clip's first seconds
 * are out. Anything these decoders report as an error, or a file that ends well before its header
 * said, answers undefined so that ffmpeg decodes it and words the refusal.
 */

const CHUNK_BYTES = 64 * 1024;

/** Share of the declared length a decode must reach (the same rule as `checkDecodedLength`). */
const MIN_SHARE = { mp3: 0.75, flac: 0.9, vorbis: 0.9, opus: 0.9 } as const;

interface Decoded {
  channelData: Float32Array[];
  samplesDecoded: number;
  sampleRate: number;
  errors: unknown[];
}

interface StreamDecoder {
  ready: Promise<void>;
  decode(data: Uint8Array): Decoded | Promise<Decoded>;
  flush?(): Promise<Decoded>;
  free(): void;
}

type Codec = 'mp3' | 'flac' | 'vorbis' | 'opus';

/** The container each codec comes in, as `typeFromProbe` names it. */
const CONTAINER = { mp3: 'mp3', flac: 'flac', vorbis: 'ogg', opus: 'ogg' } as const satisfies Record<
  Codec,
  Container
>;

// Each decoder package is loaded on the first clip of its codec, not with the core: together they
// are large (their WebAssembly comes inline), and a user who never decodes clips never pays.
async function newDecoder(codec: Codec): Promise<StreamDecoder> {
  if (codec === 'mp3') return new (await import('mpg123-decoder')).MPEGDecoder();
  if (codec === 'flac') return new (await import('@wasm-audio-decoders/flac')).FLACDecoder();
  if (codec === 'vorbis') return new (await import('@wasm-audio-decoders/ogg-vorbis')).OggVorbisDecoder();
  return new (await import('ogg-opus-decoder')).OggOpusDecoder();
}

/**
 * Collects decoded chunks up to `limit` frames and mixes them down to one channel at the end, with
 * no copy per chunk (the decoders hand back fresh arrays) and one output array: copies of a
 * 30 s stereo clip cost more in garbage collection than in copying.
 */
class Collector {
  private parts: Float32Array[][] = [];
  frames = 0;
  sampleRate = 0;

  constructor(private readonly limit: number) {}

  get full(): boolean {
    return this.frames >= this.limit;
  }

  get wanted(): number {
    return Math.max(0, this.limit - this.frames);
  }

  add(decoded: Decoded): void {
    if (decoded.samplesDecoded === 0) return;
    this.sampleRate ||= decoded.sampleRate;
    const take = Math.min(decoded.samplesDecoded, this.limit - this.frames);
    if (take <= 0) return;
    const whole = take === decoded.samplesDecoded;
    this.parts.push(
      decoded.channelData.map((ch) => (whole && ch.length === take ? ch : ch.subarray(0, take))),
    );
    this.frames += take;
  }

  /** The mean of the channels (what `mixDown` gives for the whole clip). */
  finishMono(): Float32Array {
    const out = new Float32Array(this.frames);
    let at = 0;
    for (const part of this.parts) {
      if (part.length === 1) out.set(part[0], at);
      else mixInto(out, at, part);
      at += part[0].length;
    }
    return out;
  }
}

export function containerOf(header: CompressedHeader): DecodedChannels['type'] {
  return CONTAINER[header.codec];
}

export interface CompressedHeader {
  codec: Codec;
  sampleRate: number;
  /** Declared seconds (undefined when the header does not say). */
  duration: number | undefined;
}

/** What the file's first bytes (and, for Ogg, its last page) say; undefined for other content. */
export async function compressedHeader(
  source: ClipSource,
  head: Buffer,
): Promise<CompressedHeader | undefined> {
  const flac = readFlacStreamInfo(head);
  if (flac) return { codec: 'flac', sampleRate: flac.sampleRate, duration: flac.duration };
  if (head.toString('latin1', 0, 4) === 'OggS') {
    const whole = head.length >= source.size;
    return oggHeader(head, whole ? head : await source.read(source.size - CHUNK_BYTES, CHUNK_BYTES));
  }
  // An ID3v2 tag with cover art can be longer than the head: the frames are read where it ends.
  const tag = id3Length(head);
  const frames = tag + 8192 <= head.length ? head.subarray(tag) : await source.read(tag, CHUNK_BYTES);
  const mp3 = mp3Header(frames, source.size - tag);
  if (mp3) return { codec: 'mp3', sampleRate: mp3.sampleRate, duration: mp3.duration };
  return undefined;
}

/** Decodes the first `maxSeconds` of an MP3, FLAC or Ogg Vorbis/Opus file, or undefined (ffmpeg's turn). */
export async function decodeCompressed(
  source: ClipSource,
  header: CompressedHeader,
  maxSeconds: number,
): Promise<DecodedChannels | undefined> {
  if (header.codec === 'mp3') {
    const decoded = await decodeMpeg(source, header, maxSeconds);
    if (decoded !== 'unsupported') return decoded;
  }
  const collector = new Collector(Math.round(maxSeconds * header.sampleRate));
  const decoder = await newDecoder(header.codec);
  let reachedEnd = false;
  try {
    await decoder.ready;
    const framing = header.codec === 'flac' ? 'flac' : 'ogg';
    for (let offset = 0; !collector.full; ) {
      const read = await source.read(offset, CHUNK_BYTES);
      if (read.length === 0) {
        reachedEnd = true;
        if (decoder.flush) collector.add(await decoder.flush());
        break;
      }
      // Only as many frames as the clip still wants: silence decodes to hours per 64 KB.
      const chunk = read.subarray(0, feedableBytes(framing, read, collector.wanted));
      offset += chunk.length;
      const decoded = await decoder.decode(chunk);
      if (decoded.errors.length > 0) return undefined;
      // A stream whose rate changes midway (chained Ogg, odd mp3) is left to ffmpeg.
      if (decoded.samplesDecoded > 0 && decoded.sampleRate !== header.sampleRate) return undefined;
      collector.add(decoded);
    }
  } catch {
    return undefined;
  } finally {
    decoder.free();
  }
  if (collector.frames === 0) return undefined;
  return finish(header, collector.frames, reachedEnd, () => collector.finishMono());
}

/** The decode's answer once its frames are out, or undefined when they fall short of the header. */
function finish(
  header: CompressedHeader,
  frames: number,
  reachedEnd: boolean,
  mono: () => Float32Array,
): DecodedChannels | undefined {
  const decodedSeconds = frames / header.sampleRate;
  let duration = header.duration;
  if (reachedEnd) {
    if (duration !== undefined && decodedSeconds < duration * MIN_SHARE[header.codec] - 0.05)
      return undefined;
    duration = decodedSeconds;
  }
  // Cut short without a declared length: only ffprobe can tell how long the whole file is.
  if (duration === undefined) return undefined;
  return { type: CONTAINER[header.codec], channelData: [mono()], sampleRate: header.sampleRate, duration };
}

/**
 * An MP3 by this thread's reused mpg123 (mpeg.ts), mixed down as it is read; 'unsupported' when
 * the package lacks what that needs (decodeCompressed then uses its public calls).
 */
async function decodeMpeg(
  source: ClipSource,
  header: CompressedHeader,
  maxSeconds: number,
): Promise<DecodedChannels | undefined | 'unsupported'> {
  const limit = Math.round(maxSeconds * header.sampleRate);
  // Sized from the declared length (a little over: the header's figure is an estimate); grown if short.
  const expected = Math.ceil(((header.duration ?? maxSeconds) + 0.5) * header.sampleRate);
  const sink = monoSink(limit, expected);
  let decoder: Awaited<ReturnType<typeof takeMpegDecoder>>;
  try {
    decoder = await takeMpegDecoder();
  } catch {
    return undefined;
  }
  if (!decoder) return 'unsupported';
  let broken = false;
  let reachedEnd = false;
  try {
    for (let offset = 0; sink.frames < limit; offset += CHUNK_BYTES) {
      const chunk = await source.read(offset, CHUNK_BYTES);
      if (chunk.length === 0) {
        reachedEnd = true;
        break;
      }
      if (!decoder.feed(chunk, sink, header.sampleRate)) return undefined;
    }
  } catch {
    broken = true;
    return undefined;
  } finally {
    releaseMpegDecoder(decoder, broken);
  }
  if (sink.frames === 0) return undefined;
  return finish(header, sink.frames, reachedEnd, () => sink.samples.subarray(0, sink.frames));
}
