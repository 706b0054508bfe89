import fs from 'node:fs/promises';
import path from 'node:path';
import { relayEncodeArgs, relayedAudio, transcodeArgs } from '../ffmpeg/args.ts';
import { runBinary, runLinked } from '../ffmpeg/run.ts';
import { ANALYSIS_SAMPLE_RATE } from './decode.ts';
import { toMediaError } from './ffmpeg-errors.ts';
import { IMAGE_FILES, type ImageKey, type MonoSignal, renderImages } from './images.ts';
import { MonoSink } from './mono-sink.ts';
import { audiowaveformPeaks } from './peaks.ts';
import { PREVIEW_KEYS, PREVIEWS, type PreviewKey } from './previews.ts';
import { type ProbeResult, probeFile } from './probe.ts';
import { Staging } from './staging.ts';
import { checkDecodedLength } from './validate.ts';

export const PEAKS_FILE = 'peaks.json';

export interface AnalysisContext {
  probe: ProbeResult;
  /** The staging folder: write analysis files here, return their names relative to it. */
  outDir: string;
  input: string;
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
   * Encode part of the previews in a second ffmpeg process (default true): a sound is ready sooner,
   * but one call then uses more than one core. Workers that run one job per core turn it off.
   */
  relayPreviews?: boolean;
  /** Called as each stage starts and ends: progress for job records, CPU accounting for benchmarks. */
  onStage?: (stage: Stage, phase: 'start' | 'end') => void;
}

export type Stage = 'probe' | 'transcode' | 'images' | 'peaks' | 'analysis' | 'commit';

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

  const probe = opts.probe ?? (await time('probe', () => probeFile(input, { fileName: opts.fileName })));
  const staging = await Staging.create(outDir);
  try {
    const signal = await time('transcode', () => transcode(input, probe, staging, opts));
    const ctx: AnalysisContext = { probe, outDir: staging.dir, input };
    // The hook starts first so that work it hands to another thread overlaps the images; images
    // and peaks then run one after the other so their timings are their own.
    const analysisDone = opts.analyze
      ? time('analysis', () => (opts.analyze as AnalysisHook)(signal, ctx))
      : undefined;
    const mediaDone = (async () => {
      const images = await time('images', () => writeImages(signal, staging));
      const peaks = await time('peaks', () => writePeaks(signal, staging));
      return { images, peaks };
    })();
    // allSettled: when one part fails, the other must finish before the staging folder is removed.
    const [{ images, peaks }, analysis] = await settleAll([mediaDone, analysisDone] as const);
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
      decodedDuration: signal.samples.length / signal.sampleRate,
      timings,
    };
  } catch (err) {
    await staging.abandon();
    throw toMediaError(err);
  }
}

/**
 * Previews encoded by a second ffmpeg fed from the first one's decode. ffmpeg 5.1 runs all of a
 * process's encoders on one thread, and managed-bitrate Vorbis at 80 kbps alone costs about half
 * of the encoding CPU; moving it to its own process uses the second core while the source is
 * still decoded only once.
 */
const RELAYED_PREVIEWS: ReadonlySet<PreviewKey> = new Set(['preview-lq-ogg']);

async function transcode(
  input: string,
  probe: ProbeResult,
  staging: Staging,
  opts: ProcessOptions,
): Promise<MonoSignal> {
  const sampleRate = ANALYSIS_SAMPLE_RATE;
  const sink = new MonoSink(probe.duration * sampleRate);
  const outputs = (keys: PreviewKey[]) =>
    keys.map((key) => ({ encoding: PREVIEWS[key].encoding, output: staging.path(PREVIEWS[key].file) }));
  const timeoutMs = opts.timeoutMs ?? Math.max(120_000, probe.duration * 2000);
  const onStdout = (chunk: Buffer) => sink.write(chunk);
  if (opts.relayPreviews === false) {
    await runBinary('ffmpeg', transcodeArgs(input, probe, outputs(PREVIEW_KEYS), { sampleRate }), {
      onStdout,
      timeoutMs,
      signal: opts.signal,
    });
  } else {
    const main = outputs(PREVIEW_KEYS.filter((key) => !RELAYED_PREVIEWS.has(key)));
    const relayed = outputs(PREVIEW_KEYS.filter((key) => RELAYED_PREVIEWS.has(key)));
    await runLinked(
      {
        name: 'ffmpeg',
        args: transcodeArgs(input, probe, main, { sampleRate }, true),
        options: { onStdout },
      },
      { name: 'ffmpeg', args: relayEncodeArgs(relayedAudio(probe), relayed) },
      { timeoutMs, signal: opts.signal },
    );
  }
  const samples = sink.finish();
  checkDecodedLength(probe, samples.length, sampleRate);
  return { samples, sampleRate };
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
