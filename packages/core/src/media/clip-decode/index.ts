import fs from 'node:fs/promises';
import path from 'node:path';
import { containerOfType, extensionOf, typeFromExtension } from '../formats.ts';
import { sanitizeSamples } from '../sanitize-samples.ts';
import { compressedHeader, containerOf, decodeCompressed } from './compressed.ts';
import { mixDown } from './mix.ts';
import { decodePcm } from './pcm.ts';
import { planResample, resample } from './resample.ts';
import type { ClipSource, DecodedChannels } from './types.ts';

/**
 * The in-process clip decoder: the first seconds of a WAV, AIFF, MP3, FLAC or Ogg (Vorbis, Opus) file as
 * the mono float32 signal `decodeMono` gives (mean of the channels, resampled like ffmpeg's
 * aresample), with no ffprobe and no ffmpeg process (their start-ups cost more CPU than the clip's
 * analysis). It only takes the files it is sure of: anything else, any decoder error, an extension
 * that does not match the content, answers undefined and the caller goes to ffmpeg, which decodes
 * what it can and words every refusal the one way.
 */

export interface InProcessClip {
  /** Mono mix-down at `sampleRate`, at most `maxSeconds` long. */
  samples: Float32Array;
  sampleRate: number;
  /** Seconds decoded. */
  analyzedSeconds: number;
  /** The whole file's duration in seconds. */
  duration: number;
  type: DecodedChannels['type'];
}

export interface InProcessClipOptions {
  sampleRate: number;
  maxSeconds: number;
  /** The user's file name: its extension must name the content's container. */
  fileName?: string;
}

const HEAD_BYTES = 64 * 1024;
/**
 * Decoded past the cut and trimmed after resampling, so the last samples before the cut are
 * filtered with the audio that follows them, as ffmpeg's `-t` does (10 ms outlasts every filter).
 */
const CUT_MARGIN_SECONDS = 0.01;

async function openSource(file: string): Promise<{ source: ClipSource; close: () => Promise<void> }> {
  const handle = await fs.open(file, 'r');
  const { size } = await handle.stat();
  const source: ClipSource = {
    size,
    async read(offset, length) {
      const want = Math.max(0, Math.min(length, size - offset));
      const buf = Buffer.allocUnsafe(want);
      let got = 0;
      while (got < want) {
        const { bytesRead } = await handle.read(buf, got, want - got, offset + got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      return got === want ? buf : buf.subarray(0, got);
    },
  };
  return { source, close: () => handle.close() };
}

/** The user's name for the file names this container (or has no extension: judged by content). */
function nameFits(fileName: string, type: DecodedChannels['type']): boolean {
  const claimed = typeFromExtension(fileName);
  if (claimed === undefined) return extensionOf(fileName) === '';
  return containerOfType(claimed) === type;
}

export async function decodeClipInProcess(
  file: string,
  options: InProcessClipOptions,
): Promise<InProcessClip | undefined> {
  const fileName = options.fileName ?? path.basename(file);
  const { source, close } = await openSource(file);
  let decoded: DecodedChannels | undefined;
  try {
    if (source.size === 0) return undefined;
    decoded = await decodePcm(source, options.maxSeconds + CUT_MARGIN_SECONDS);
    if (!decoded) {
      const header = await compressedHeader(source, await source.read(0, HEAD_BYTES));
      if (!header || !nameFits(fileName, containerOf(header))) return undefined;
      decoded = await decodeCompressed(source, header, options.maxSeconds + CUT_MARGIN_SECONDS);
    }
  } finally {
    await close();
  }
  if (!decoded || !nameFits(fileName, decoded.type)) return undefined;
  let samples = mixDown(decoded.channelData);
  if (decoded.sampleRate !== options.sampleRate) {
    const plan = planResample(decoded.sampleRate, options.sampleRate);
    if (!plan) return undefined;
    samples = resample(samples, plan);
  }
  const limit = Math.round(options.maxSeconds * options.sampleRate);
  if (samples.length > limit) samples = samples.subarray(0, limit);
  sanitizeSamples(samples);
  return {
    samples,
    sampleRate: options.sampleRate,
    analyzedSeconds: samples.length / options.sampleRate,
    duration: decoded.duration,
    type: decoded.type,
  };
}
