import { decodeMonoArgs } from '../ffmpeg/args.ts';
import { defaultFfmpeg, type Ffmpeg } from '../ffmpeg/ffmpeg.ts';
import { checkDuration, decodeLimitSeconds, overrunError } from './duration-limit.ts';
import { toMediaError } from './ffmpeg-errors.ts';
import { MonoSink } from './mono-sink.ts';
import { type ProbeResult, probeFile } from './probe.ts';
import { checkDecodedLength } from './validate.ts';

export const ANALYSIS_SAMPLE_RATE = 44_100;
/** ffmpeg's `-t` ends on a whole frame of the resampler: a few samples over the exact count. */
const CLIP_SLACK_SAMPLES = 4096;

export interface DecodedSignal {
  /** Mono mix-down (mean of the channels), float32. */
  samples: Float32Array;
  sampleRate: number;
  /** Seconds, from the decoded sample count. */
  duration: number;
}

/** What a decode needs to know of its file: a probe (`probeFile`) holds it, or a plain PCM header. */
export type DecodeSource = Pick<ProbeResult, 'type' | 'duration' | 'samplerate' | 'channels' | 'streamIndex'>;

export interface DecodeOptions {
  /** Default 44100. */
  sampleRate?: number;
  timeoutMs?: number;
  /** What is already known of this file, e.g. its probe (skips ffprobe and the md5). */
  probe?: DecodeSource;
  /** The user's file name, for the extension check when probing here. */
  fileName?: string;
  /** Decode only the first seconds (a search-by-example clip); the rest of the file is never read. */
  maxSeconds?: number;
  /**
   * The longest sound taken (UPLOAD_MAX_SECONDS): a longer probe is refused, and the decode fails
   * as soon as it yields more than the header stated (or than this), holding no more than that.
   */
  maxDuration?: number;
  /** The ffmpeg/ffprobe to run (default: `defaultFfmpeg()`). */
  ffmpeg?: Ffmpeg;
}

/**
 * Decodes a file once to a mono float32 signal at 44.1 kHz (or `sampleRate`). Memory: the signal,
 * preallocated from the probed duration, plus ffmpeg's pipe chunks. Throws MediaError for files
 * that are not usable audio.
 */
export async function decodeMono(file: string, opts: DecodeOptions = {}): Promise<DecodedSignal> {
  const sampleRate = opts.sampleRate ?? ANALYSIS_SAMPLE_RATE;
  const probe =
    opts.probe ??
    (await probeFile(file, { fileName: opts.fileName, timeoutMs: opts.timeoutMs, ffmpeg: opts.ffmpeg }));
  const whole = opts.maxSeconds === undefined;
  if (whole) checkDuration(probe.duration, opts.maxDuration);
  const seconds = whole ? probe.duration : Math.min(probe.duration, opts.maxSeconds as number);
  // A clip is cut by ffmpeg's output `-t`; a whole file may yield a little more than its header says.
  const limit = whole ? decodeLimitSeconds(probe.type, probe.duration, opts.maxDuration) : seconds;
  const sink = new MonoSink(seconds * sampleRate, {
    samples: Math.ceil(limit * sampleRate) + (whole ? 0 : CLIP_SLACK_SAMPLES),
    error: whole ? () => overrunError(probe.duration, limit, opts.maxDuration) : undefined,
  });
  const readLimit = whole && Number.isFinite(limit) ? Math.ceil(limit) + 1 : undefined;
  try {
    const ffmpeg = opts.ffmpeg ?? defaultFfmpeg();
    await ffmpeg.run('ffmpeg', decodeMonoArgs(file, probe, sampleRate, opts.maxSeconds, readLimit), {
      timeoutMs: opts.timeoutMs,
      onStdout: (chunk) => sink.write(chunk),
    });
  } catch (err) {
    throw toMediaError(err);
  }
  const samples = sink.finish();
  checkDecodedLength({ ...probe, duration: seconds }, samples.length, sampleRate);
  return { samples, sampleRate, duration: samples.length / sampleRate };
}
