import path from 'node:path';
import type { Logger } from '@earshot/common';
import {
  defaultFfmpeg,
  type Ffmpeg,
  IncompleteAnalysisError,
  InvalidVectorError,
  listSimilaritySpaces,
  type ProbeResult,
  probeFile,
  processFile,
  type Stage,
  type StoredFileKind,
  similarityVectorFromAnalysis,
  type VariantATree,
} from '@earshot/core';
import { writeAnalysisHandOff, writeSignal } from './hand-off.ts';
import type { AnalysisOutput, MediaTools, RenderedMedia, StageToolsOptions } from './tools.ts';

/**
 * Computes a sound's descriptors from its file and writes the analysis files into `outDir`, with
 * the tools' ffmpeg (`options.ffmpeg`) where it decodes.
 */
export type SoundAnalyzer = (
  file: string,
  outDir: string,
  options: StageToolsOptions & { ffmpeg?: Ffmpeg },
) => Promise<AnalysisOutput>;

export interface CoreToolsOptions {
  /**
   * One core per job: one ffmpeg decodes once for all previews and the signal (processFile's
   * `relayPreviews` off) and the analysis waits for its own stage. Right where processes scale out
   * (BullMQ workers); a lone in-process runner finishes each sound sooner with the signal decoded
   * on its own, the Vorbis encoder relayed beside the mp3 one and the analysis made in the media
   * stage while they encode.
   */
  corePerJob?: boolean;
  /**
   * The longest sound processed, in seconds (UPLOAD_MAX_SECONDS): a longer probe fails the sound
   * at once, and a decode that yields more than its header stated (or than this) stops and fails it.
   */
  maxDuration?: number;
  /** The ffmpeg/ffprobe the tools run (default: core's `defaultFfmpeg()`). */
  ffmpeg?: Ffmpeg;
}

/** MediaTools on @earshot/core: ffprobe, the media pipeline, the descriptors, the similarity spaces. */
export class CoreMediaTools implements MediaTools {
  private readonly ffmpeg: Ffmpeg;

  constructor(
    private readonly analyzer: SoundAnalyzer,
    private readonly logger: Logger,
    private readonly options: CoreToolsOptions = {},
  ) {
    this.ffmpeg = options.ffmpeg ?? defaultFfmpeg();
  }

  probe(file: string, fileName: string): Promise<ProbeResult> {
    return probeFile(file, { fileName, maxDuration: this.options.maxDuration, ffmpeg: this.ffmpeg });
  }

  async renderMedia(file: string, outDir: string, options: StageToolsOptions): Promise<RenderedMedia> {
    const { signalFile, analysisHandOff } = options;
    // A lone runner analyses while ffmpeg encodes (both cores on one sound); one core per job
    // leaves the signal for the analysis stage instead.
    const alongside = analysisHandOff !== undefined && !this.options.corePerJob;
    const progress = stageProgress(options.onProgress, alongside);
    const result = await processFile(file, outDir, {
      signal: options.signal,
      probe: options.probe,
      relayPreviews: !this.options.corePerJob,
      maxDuration: this.options.maxDuration,
      ffmpeg: this.ffmpeg,
      onStage: progress,
      // The media stage decodes the file anyway: its mono signal serves the analysis.
      analyze:
        signalFile || alongside
          ? async (decoded) => {
              if (alongside && (await this.analyzeAlongside(file, decoded.samples, options)))
                return { files: [] };
              if (signalFile) await writeSignal(signalFile, decoded.samples, options.signal);
              return { files: [] };
            }
          : undefined,
    });
    const files: Record<string, string> = {
      peaks: path.basename(result.files.peaks),
    } satisfies Partial<Record<StoredFileKind, string>>;
    for (const [key, p] of Object.entries(result.files.previews)) files[key] = path.basename(p);
    for (const [key, p] of Object.entries(result.files.images)) files[key] = path.basename(p);
    return { files };
  }

  /**
   * The analysis stage's work, done here on the signal in memory and left in the hand-off folder.
   * A failure is not the media's: it is logged and the analysis stage runs (and reports) it again.
   */
  private async analyzeAlongside(
    file: string,
    samples: Float32Array,
    options: StageToolsOptions,
  ): Promise<boolean> {
    try {
      await writeAnalysisHandOff(
        options.analysisHandOff as string,
        (dir) =>
          this.analyzer(file, dir, {
            signal: options.signal,
            probe: options.probe,
            samples,
            ffmpeg: this.ffmpeg,
          }),
        options.signal,
      );
      return true;
    } catch (err) {
      if (options.signal.aborted) throw err;
      this.logger.warn({ err }, 'analysis alongside the media failed; the analysis stage will run it');
      return false;
    }
  }

  analyze(file: string, outDir: string, options: StageToolsOptions): Promise<AnalysisOutput> {
    return this.analyzer(file, outDir, { ...options, ffmpeg: this.ffmpeg });
  }

  similarityVectors(analysis: VariantATree): Array<{ space: string; vector: Float32Array }> {
    const vectors: Array<{ space: string; vector: Float32Array }> = [];
    for (const space of listSimilaritySpaces()) {
      try {
        vectors.push({
          space: space.name,
          vector: similarityVectorFromAnalysis(space.name, analysis),
        });
      } catch (err) {
        // A silent or degenerate sound has no direction in a space: it is simply not similar-searchable there.
        if (!(err instanceof IncompleteAnalysisError || err instanceof InvalidVectorError)) throw err;
        this.logger.info({ space: space.name, reason: err.message }, 'sound left out of a similarity space');
      }
    }
    return vectors;
  }
}

/**
 * Progress of the media stage from its parts as they end (they overlap, so by share of the work
 * rather than by time): shares measured on a 66 s stereo file, the analysis only when it runs here.
 */
function stageProgress(
  report: ((percent: number) => void) | undefined,
  withAnalysis: boolean,
): ((stage: Stage, phase: 'start' | 'end') => void) | undefined {
  if (!report) return undefined;
  const shares: Partial<Record<Stage, number>> = withAnalysis
    ? { calibrate: 5, decode: 5, images: 5, analysis: 40, transcode: 45 }
    : { calibrate: 10, decode: 5, images: 10, transcode: 75 };
  const total = Object.values(shares).reduce((a, b) => a + (b ?? 0), 0);
  let done = 0;
  return (stage, phase) => {
    if (phase !== 'end' || !shares[stage]) return;
    done += shares[stage] as number;
    report(Math.min(100, Math.round((done / total) * 100)));
  };
}
