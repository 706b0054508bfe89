import type { Ffmpeg } from '../ffmpeg/ffmpeg.ts';
import { decodeClipInProcess } from '../media/clip-decode/index.ts';
import { ANALYSIS_SAMPLE_RATE, type DecodedSignal, decodeMono } from '../media/decode.ts';
import { probeFile } from '../media/probe.ts';
import { analyzeSignal } from './analyze.ts';
import { analyzeSubset, planSubset } from './analyze-subset.ts';
import { loadFloat32Fft } from './fft-f32.ts';
import type { VariantATree } from './types.ts';

/** How much of a search-by-example clip is analyzed: longer clips are cut to their first 30 s. */
export const CLIP_MAX_SECONDS = 30;

/**
 * The lean analysis of a clip runs its costly per-frame work on every 4th frame (`frameStride` of
 * `LowLevelOptions`): a clip is only a query, and the statistics the spaces read stay within the
 * errors docs/similarity.md lists, while the analysis costs about half as much CPU.
 */
export const CLIP_FRAME_STRIDE = 4;

export interface ClipAnalysis {
  /** The variant-A tree of the analyzed part, what similarity spaces and content targets read. */
  tree: VariantATree;
  /** Seconds analyzed (at most `maxSeconds`). */
  analyzedSeconds: number;
  /** The whole clip's duration as probed. */
  duration: number;
  /** True when the clip was longer than `maxSeconds` and only its beginning was analyzed. */
  truncated: boolean;
  /** True when only the `needs` were computed (false: the whole analysis ran). */
  lean: boolean;
  /** Wall-clock milliseconds of the two stages, for the clip pool's per-stage figures. */
  timings: ClipTimings;
}

/** Where a clip's time went in the thread that analyzed it. */
export interface ClipTimings {
  /** Reading and decoding the file to the mono analysis signal. */
  decodeMs: number;
  /** The (lean or whole) analysis of that signal. */
  analysisMs: number;
}

export interface AnalyzeClipOptions {
  maxSeconds?: number;
  /** The name the user gave the file (its extension is checked against the content). */
  fileName?: string;
  timeoutMs?: number;
  /**
   * Variant-A paths the caller reads (`exampleAnalysisNeeds(space)`): only these are computed (with
   * `frameStride: 1`, with the same values the full analysis gives them). Without it, or when one of them is outside what
   * the lean analysis computes (tonal, rhythm, loudness), the whole analysis runs.
   */
  needs?: readonly string[];
  /**
   * The lean analysis's frame stride (default CLIP_FRAME_STRIDE; 1 gives every value as the full
   * analysis does). The whole analysis, when it runs, always reads every frame.
   */
  frameStride?: number;
  /**
   * The lean analysis's spectra by the float32 WebAssembly FFT (default true; false gives fft.js's
   * float64 values, as the full analysis has them). See `LowLevelOptions.float32Fft`.
   */
  float32Fft?: boolean;
  /**
   * The ffmpeg/ffprobe for the files the in-process decoder leaves to them (default:
   * `defaultFfmpeg()`). Not for `ClipAnalysisPool.analyze`, whose threads run the pool's.
   */
  ffmpeg?: Ffmpeg;
}

/**
 * The clip's first `maxSeconds` as the analysis signal, and the whole clip's duration. The common
 * formats are decoded in this thread (no process start-up, which costs more CPU than the analysis);
 * the others, and every file the in-process decoder is not sure of, go through ffprobe and ffmpeg,
 * which also word the refusal of a bad file.
 */
async function decodeClip(
  file: string,
  maxSeconds: number,
  options: AnalyzeClipOptions,
): Promise<{ signal: DecodedSignal; duration: number }> {
  const sampleRate = ANALYSIS_SAMPLE_RATE;
  const own = await decodeClipInProcess(file, { sampleRate, maxSeconds, fileName: options.fileName });
  if (own) {
    const signal = { samples: own.samples, sampleRate, duration: own.analyzedSeconds };
    return { signal, duration: own.duration };
  }
  const probe = await probeFile(file, {
    fileName: options.fileName,
    timeoutMs: options.timeoutMs,
    md5: false,
    ffmpeg: options.ffmpeg,
  });
  const signal = await decodeMono(file, {
    probe,
    maxSeconds,
    timeoutMs: options.timeoutMs,
    ffmpeg: options.ffmpeg,
  });
  return { signal, duration: probe.duration };
}

/**
 * Analyzes the first `maxSeconds` of a clip in this thread (callers on an event loop that serves
 * requests use `ClipAnalysisPool`). Only the beginning is decoded; no md5, frames file or loudness
 * over the original channels: the clip is compared, never stored.
 */
export async function analyzeClip(file: string, options: AnalyzeClipOptions = {}): Promise<ClipAnalysis> {
  const maxSeconds = options.maxSeconds ?? CLIP_MAX_SECONDS;
  const started = performance.now();
  const { signal, duration } = await decodeClip(file, maxSeconds, options);
  const decoded = performance.now();
  const plan = options.needs ? planSubset(options.needs) : undefined;
  const lean = plan !== undefined && plan.unsupported.length === 0;
  const float32Fft = lean && (options.float32Fft ?? true);
  if (float32Fft) await loadFloat32Fft();
  const tree =
    plan && lean
      ? analyzeSubset(signal.samples, signal.sampleRate, plan, {
          frameStride: options.frameStride ?? CLIP_FRAME_STRIDE,
          float32Fft,
        })
      : (await analyzeSignal(signal.samples, signal.sampleRate)).variantA;
  const timings = { decodeMs: decoded - started, analysisMs: performance.now() - decoded };
  return {
    lean,
    tree,
    timings,
    analyzedSeconds: signal.duration,
    duration,
    truncated: duration > maxSeconds + 0.01,
  };
}
