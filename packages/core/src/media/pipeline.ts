import fs from 'node:fs/promises';
import path from 'node:path';
import {
  decodeMonoArgs,
  type PreviewEncoding,
  relayEncodeArgs,
  relayedAudio,
  transcodeArgs,
} from '../ffmpeg/args.ts';
import { defaultFfmpeg, type Ffmpeg } from '../ffmpeg/ffmpeg.ts';
import { ANALYSIS_SAMPLE_RATE } from './decode.ts';
import { checkDuration, decodeLimitSeconds, overrunError } from './duration-limit.ts';
import { toMediaError } from './ffmpeg-errors.ts';
import { IMAGE_FILES, type ImageKey, type MonoSignal, renderImages } from './images.ts';
import { MonoSink } from './mono-sink.ts';
import { audiowaveformPeaks } from './peaks.ts';
import { PREVIEW_KEYS, PREVIEWS, type PreviewKey } from './previews.ts';
import { type ProbeResult, probeFile } from './probe.ts';
import { Staging } from './staging.ts';
import { STORED_FILES } from './stored-files.ts';
import { checkDecodedLength } from './validate.ts';
import { calibrateVorbis } from './vorbis-quality.ts';

export const PEAKS_FILE = STORED_FILES.peaks.file;

export interface AnalysisContext {
  probe: ProbeResult;
  /** The staging folder: write analysis files here, return their names relative to it. */
  outDir: string;
  input: string;
  /** The Ffmpeg the pipeline runs: the hook's own ffmpeg runs (loudness) use it too. */
  ffmpeg: Ffmpeg;
}

export interface AnalysisHookResult {
  /** Files written into `ctx.outDir` (relative names), moved into the output folder with the rest. */
  files: string[];
  [key: string]: unknown;
}

/** Where descriptor analysis plugs in: it gets the already-decoded signal, never decodes again. */
export type AnalysisHook = (signal: MonoSignal, ctx: AnalysisContext) => Promise<AnalysisHookResult>;

export interface ProcessOptions {
  /** The user's file name (for the extension check); default: the input's own name. */
  fileName?: string;
  /** Limit for the ffmpeg run; default 2 minutes or twice the sound's duration, whichever is longer. */
  timeoutMs?: number;
  analyze?: AnalysisHook;
  /** A probe already made of this file. */
  probe?: ProbeResult;
  signal?: AbortSignal;
  /**
   * Use more than one core for one sound (default true): the mono signal is decoded by a process
   * of its own, so the images and the analysis hook run while the previews are encoded, and the
   * Vorbis previews are encoded by a second ffmpeg fed from the first one's decode. Workers that
   * run one job per core turn it off: one ffmpeg then decodes once for everything.
   */
  relayPreviews?: boolean;
  /** Called as each stage starts and ends: progress for job records, CPU accounting for benchmarks. */
  onStage?: (stage: Stage, phase: 'start' | 'end') => void;
  /**
   * The longest sound taken, in seconds (UPLOAD_MAX_SECONDS): a longer probe is refused before any
   * decoding, and a decode stops as soon as it yields more than the header stated (or than this).
   */
  maxDuration?: number;
  /** The ffmpeg/ffprobe to run (default: `defaultFfmpeg()`). */
  ffmpeg?: Ffmpeg;
}

export type Stage =
  | 'probe'
  | 'calibrate'
  | 'decode'
  | 'transcode'
  | 'images'
  | 'peaks'
  | 'analysis'
  | 'commit';

export interface ProcessResult {
  probe: ProbeResult;
  /** Absolute paths of what was written. */
  files: {
    previews: Record<PreviewKey, string>;
    images: Record<ImageKey, string>;
    peaks: string;
    analysis: string[];
  };
  /** Whatever the analysis hook returned besides its files. */
  analysis?: Omit<AnalysisHookResult, 'files'>;
  /** Seconds of decoded audio. */
  decodedDuration: number;
  /** Wall milliseconds per stage. */
  timings: Record<Stage, number>;
}

/**
 * The media stage of a sound: probe, then ONE ffmpeg decode of the file that writes the previews,
 * the mono float32 signal to a pipe and the decoded audio to a second encoder process, then the
 * images, peaks and the optional analysis from that signal. All outputs appear in `outDir`
 * together, or none do.
 */
export async function processFile(
  input: string,
  outDir: string,
  opts: ProcessOptions = {},
): Promise<ProcessResult> {
  const timings: Record<Stage, number> = {
    probe: 0,
    calibrate: 0,
    decode: 0,
    transcode: 0,
    images: 0,
    peaks: 0,
    analysis: 0,
    commit: 0,
  };
  const time = async <T>(stage: Stage, work: () => Promise<T>): Promise<T> => {
    opts.onStage?.(stage, 'start');
    const start = performance.now();
    try {
      return await work();
    } finally {
      timings[stage] += performance.now() - start;
      opts.onStage?.(stage, 'end');
    }
  };

  const ffmpeg = opts.ffmpeg ?? defaultFfmpeg();
  const probe =
    opts.probe ??
    (await time('probe', () =>
      probeFile(input, { fileName: opts.fileName, maxDuration: opts.maxDuration, ffmpeg }),
    ));
  checkDuration(probe.duration, opts.maxDuration);
  const staging = await Staging.create(outDir);
  // One failing part stops the others' ffmpeg at once; allSettled below then waits for all of them
  // before the staging folder is removed.
  const stop = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, stop.signal]) : stop.signal;
  // The first failure is the cause; the parts it stopped fail after it with abort errors.
  let firstFailure: { error: unknown } | undefined;
  const stopOnFailure = <T>(work: Promise<T>): Promise<T> =>
    work.catch((err) => {
      firstFailure ??= { error: err };
      stop.abort();
      throw err;
    });
  const run: RunContext = {
    ffmpeg,
    input,
    probe,
    staging,
    signal,
    timeoutMs: transcodeTimeout(probe, opts),
    maxDuration: opts.maxDuration,
    limitSeconds: decodeLimitSeconds(probe.type, probe.duration, opts.maxDuration),
  };
  try {
    const calibrated = (scratch: string) =>
      time('calibrate', () => calibratedPreviews(run, staging.path(scratch)));
    let mono: Promise<MonoSignal>;
    let previews: Promise<void>;
    let analysisGate: Promise<void> = Promise.resolve();
    if (opts.relayPreviews === false) {
      mono = stopOnFailure(
        calibrated('.trial').then((encodings) =>
          time('transcode', () => transcodeWithSignal(run, encodings)),
        ),
      );
      previews = mono.then(() => undefined);
    } else {
      mono = stopOnFailure(time('decode', () => decodeSignal(run)));
      const calibration = calibrated('.trial');
      previews = stopOnFailure(
        calibration.then((encodings) => time('transcode', () => transcodeRelayed(run, encodings))),
      );
      // The analysis keeps the event loop busy for seconds at a time: started after the Vorbis trials,
      // it cannot hold up the start of the previews that wait for them (the longest chain).
      analysisGate = calibration.then(
        () => undefined,
        () => undefined,
      );
    }
    const ctx: AnalysisContext = { probe, outDir: staging.dir, input, ffmpeg };
    // The hook starts first so that work it hands to another thread overlaps the images; images
    // and peaks then run one after the other so their timings are their own.
    const analysisDone = opts.analyze
      ? stopOnFailure(
          Promise.all([mono, analysisGate]).then(([decoded]) =>
            time('analysis', () => (opts.analyze as AnalysisHook)(decoded, ctx)),
          ),
        )
      : undefined;
    const mediaDone = stopOnFailure(
      mono.then(async (decoded) => {
        const images = await time('images', () => writeImages(decoded, staging));
        const peaks = await time('peaks', () => writePeaks(decoded, staging));
        return { images, peaks, decoded };
      }),
    );
    // allSettled: when one part fails, the others must finish before the staging folder is removed.
    const [{ images, peaks, decoded }, analysis] = await settleAll([
      mediaDone,
      analysisDone,
      previews,
    ] as const);
    const signalOf = decoded;
    const previewNames = PREVIEW_KEYS.map((key) => PREVIEWS[key].file);
    const analysisNames = analysis?.files ?? [];
    await time('commit', () => staging.commit([...previewNames, ...images, peaks, ...analysisNames]));

    const final = (name: string) => path.join(staging.outDir, name);
    const { files: _files, ...analysisRest } = analysis ?? { files: [] };
    return {
      probe,
      files: {
        previews: Object.fromEntries(PREVIEW_KEYS.map((k) => [k, final(PREVIEWS[k].file)])) as Record<
          PreviewKey,
          string
        >,
        images: Object.fromEntries(Object.entries(IMAGE_FILES).map(([k, f]) => [k, final(f)])) as Record<
          ImageKey,
          string
        >,
        peaks: final(peaks),
        analysis: analysisNames.map(final),
      },
      analysis: analysis ? analysisRest : undefined,
      decodedDuration: signalOf.samples.length / signalOf.sampleRate,
      timings,
    };
  } catch (err) {
    await staging.abandon();
    throw toMediaError(firstFailure ? firstFailure.error : err);
  }
}

interface RunContext {
  ffmpeg: Ffmpeg;
  input: string;
  probe: ProbeResult;
  staging: Staging;
  signal: AbortSignal;
  timeoutMs: number;
  maxDuration: number | undefined;
  /** Seconds of audio a decode may yield (decodeLimitSeconds); more fails the sound. */
  limitSeconds: number;
}

function transcodeTimeout(probe: ProbeResult, opts: ProcessOptions): number {
  return opts.timeoutMs ?? Math.max(120_000, probe.duration * 2000);
}

type PreviewOutput = { key: PreviewKey; encoding: PreviewEncoding; output: string };

/** The four previews with the Vorbis qualities chosen for this source (vorbis-quality.ts). */
async function calibratedPreviews(run: RunContext, scratch: string): Promise<PreviewOutput[]> {
  const encodings = await calibrateVorbis(
    run.input,
    run.probe,
    run.probe.duration,
    PREVIEW_KEYS.map((key) => PREVIEWS[key].encoding),
    scratch,
    { timeoutMs: run.timeoutMs, signal: run.signal, ffmpeg: run.ffmpeg },
  );
  return PREVIEW_KEYS.map((key, i) => ({
    key,
    encoding: encodings[i],
    output: run.staging.path(PREVIEWS[key].file),
  }));
}

/** The mono float32 signal for images, peaks and analysis, from an ffmpeg of its own (a fast decode). */
async function decodeSignal(run: RunContext): Promise<MonoSignal> {
  const sampleRate = ANALYSIS_SAMPLE_RATE;
  const sink = cappedSink(run, sampleRate);
  await run.ffmpeg.run(
    'ffmpeg',
    decodeMonoArgs(run.input, run.probe, sampleRate, undefined, readLimit(run)),
    {
      onStdout: (chunk) => sink.write(chunk),
      timeoutMs: run.timeoutMs,
      signal: run.signal,
    },
  );
  return finishSignal(run, sink);
}

/** One ffmpeg: one decode, all four previews and the mono signal (one core per job). */
async function transcodeWithSignal(run: RunContext, previews: PreviewOutput[]): Promise<MonoSignal> {
  const sampleRate = ANALYSIS_SAMPLE_RATE;
  const sink = cappedSink(run, sampleRate);
  const args = transcodeArgs(run.input, run.probe, previews, { sampleRate }, false, readLimit(run));
  await run.ffmpeg.run('ffmpeg', args, {
    onStdout: (chunk) => sink.write(chunk),
    timeoutMs: run.timeoutMs,
    signal: run.signal,
  });
  return finishSignal(run, sink);
}

/**
 * The sink for the mono signal, holding no more than the decode may yield: past that the decode
 * stops and the sound fails, so a header that understates a long stream costs what it states.
 */
function cappedSink(run: RunContext, sampleRate: number): MonoSink {
  return new MonoSink(run.probe.duration * sampleRate, {
    samples: Math.ceil(run.limitSeconds * sampleRate),
    error: () => overrunError(run.probe.duration, run.limitSeconds, run.maxDuration),
  });
}

/**
 * What ffmpeg may read of the file: a second past the sink's cap, so that a longer stream reaches
 * the sink (and fails there) rather than being cut short without a word.
 */
function readLimit(run: RunContext): number | undefined {
  return Number.isFinite(run.limitSeconds) ? Math.ceil(run.limitSeconds) + 1 : undefined;
}

function finishSignal(run: RunContext, sink: MonoSink): MonoSignal {
  const samples = sink.finish();
  checkDecodedLength(run.probe, samples.length, ANALYSIS_SAMPLE_RATE);
  return { samples, sampleRate: ANALYSIS_SAMPLE_RATE };
}

/**
 * The previews in three ffmpeg processes, one core's worth of work each: ffmpeg 5.1 runs all
 * encoders of one process on one thread. The first decodes the file, encodes the mp3 previews and
 * relays the decoded audio over a pipe to a second that encodes the first Vorbis preview; a third
 * decodes the file again for the other Vorbis preview. The Vorbis previews wait for their trials,
 * so their encoding is the end of the longest chain: split in two it ends about a second sooner on
 * two cores, for a second decode of the file (a few hundredths of a CPU-second for PCM).
 */
async function transcodeRelayed(run: RunContext, previews: PreviewOutput[]): Promise<void> {
  const main = previews.filter((p) => p.encoding.codec !== 'libvorbis');
  const [relayed, ...own] = previews.filter((p) => p.encoding.codec === 'libvorbis');
  // One failing process stops the others at once; all have ended before the failure is reported.
  const stop = new AbortController();
  const options = { timeoutMs: run.timeoutMs, signal: AbortSignal.any([run.signal, stop.signal]) };
  let firstFailure: { error: unknown } | undefined;
  const stopOnFailure = (work: Promise<unknown>) =>
    work.catch((error: unknown) => {
      firstFailure ??= { error };
      stop.abort();
    });
  await Promise.all(
    [
      run.ffmpeg.runLinked(
        { name: 'ffmpeg', args: transcodeArgs(run.input, run.probe, main, undefined, true, readLimit(run)) },
        { name: 'ffmpeg', args: relayEncodeArgs(relayedAudio(run.probe), [relayed]) },
        options,
      ),
      ...own.map((p) =>
        run.ffmpeg.run(
          'ffmpeg',
          transcodeArgs(run.input, run.probe, [p], undefined, false, readLimit(run)),
          options,
        ),
      ),
    ].map(stopOnFailure),
  );
  if (firstFailure) throw firstFailure.error;
}

async function writeImages(signal: MonoSignal, staging: Staging): Promise<string[]> {
  const images = await renderImages(signal);
  await Promise.all(
    (Object.keys(images) as ImageKey[]).map((key) =>
      fs.writeFile(staging.path(IMAGE_FILES[key]), images[key]),
    ),
  );
  return Object.values(IMAGE_FILES);
}

async function writePeaks(signal: MonoSignal, staging: Staging): Promise<string> {
  await fs.writeFile(
    staging.path(PEAKS_FILE),
    JSON.stringify(audiowaveformPeaks(signal.samples, signal.sampleRate)),
  );
  return PEAKS_FILE;
}

async function settleAll<T extends readonly unknown[]>(
  work: T,
): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const results = await Promise.allSettled(work);
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
  return results.map((r) => (r as PromiseFulfilledResult<unknown>).value) as {
    -readonly [K in keyof T]: Awaited<T[K]>;
  };
}
