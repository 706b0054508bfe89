import path from 'node:path';
import type { Logger } from '@earshot/common';
import {
  IncompleteAnalysisError,
  InvalidVectorError,
  listSimilaritySpaces,
  type ProbeResult,
  probeFile,
  processFile,
  similarityVectorFromAnalysis,
  type VariantATree,
} from '@earshot/core';
import { writeSignal } from './hand-off.ts';
import type { AnalysisOutput, MediaTools, RenderedMedia, StageToolsOptions } from './tools.ts';

/** Computes a sound's descriptors from its file and writes the analysis files into `outDir`. */
export type SoundAnalyzer = (
  file: string,
  outDir: string,
  options: StageToolsOptions,
) => Promise<AnalysisOutput>;

export interface CoreToolsOptions {
  /**
   * One core per job: no second ffmpeg encoder relayed beside the first (see processFile's
   * `relayPreviews`). Right where processes scale out (BullMQ workers); a lone in-process runner
   * finishes each sound sooner with the relay.
   */
  corePerJob?: boolean;
}

/** MediaTools on @earshot/core: ffprobe, the media pipeline, the descriptors, the similarity spaces. */
export class CoreMediaTools implements MediaTools {
  constructor(
    private readonly analyzer: SoundAnalyzer,
    private readonly logger: Logger,
    private readonly options: CoreToolsOptions = {},
  ) {}

  probe(file: string, fileName: string): Promise<ProbeResult> {
    return probeFile(file, { fileName });
  }

  async renderMedia(file: string, outDir: string, options: StageToolsOptions): Promise<RenderedMedia> {
    const signalFile = options.signalFile;
    const result = await processFile(file, outDir, {
      signal: options.signal,
      probe: options.probe,
      relayPreviews: !this.options.corePerJob,
      // The media stage decodes the file anyway: its mono signal is kept for the analysis stage.
      analyze: signalFile
        ? async (decoded) => {
            await writeSignal(signalFile, decoded.samples);
            return { files: [] };
          }
        : undefined,
    });
    const files: Record<string, string> = { peaks: path.basename(result.files.peaks) };
    for (const [key, p] of Object.entries(result.files.previews)) files[key] = path.basename(p);
    for (const [key, p] of Object.entries(result.files.images)) files[key] = path.basename(p);
    return { files };
  }

  analyze(file: string, outDir: string, options: StageToolsOptions): Promise<AnalysisOutput> {
    return this.analyzer(file, outDir, options);
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
