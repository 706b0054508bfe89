import type { StoredAnalysis } from '@earshot/catalogue';
import type { ProbeResult, VariantATree } from '@earshot/core';

/**
 * The analysis core as the stages use it. `core-tools.ts` implements it on @earshot/core; keeping
 * the stages on this small interface lets them be read (and built) without the core's internals.
 */
export interface StageToolsOptions {
  signal: AbortSignal;
  /** Progress within the call, 0–100. */
  onProgress?: (percent: number) => void;
  /** What `probe` returned for this file earlier, when it is at hand (saves probing again). */
  probe?: ProbeResult;
  /**
   * renderMedia: where to leave the decoded mono analysis signal for `analyze`;
   * analyze: where such a signal may be waiting (used when it is there and fits, else it decodes).
   */
  signalFile?: string;
  /**
   * renderMedia: where to leave the analysis made alongside the media (hand-off.ts), when the
   * tools analyse there; analyze: the decoded mono signal in memory (44.1 kHz), used before any file.
   */
  analysisHandOff?: string;
  samples?: Float32Array;
}

export interface RenderedMedia {
  /** File names inside the output folder, keyed by the contract's names (preview-hq-mp3, …). */
  files: Record<string, string>;
}

export interface AnalysisOutput {
  /** File names inside the output folder. */
  analysisFile: string;
  framesFile?: string;
  /** Further files, keyed by the name the catalogue lists them under. */
  extraFiles?: Record<string, string>;
  /** The analysis as the catalogue stores it; its variant-A tree is what the similarity spaces read. */
  analysis: StoredAnalysis;
}

export interface MediaTools {
  /** Validates and probes an upload; throws a user-readable error for files we refuse. */
  probe(file: string, fileName: string, options: StageToolsOptions): Promise<ProbeResult>;
  renderMedia(file: string, outDir: string, options: StageToolsOptions): Promise<RenderedMedia>;
  analyze(file: string, outDir: string, options: StageToolsOptions): Promise<AnalysisOutput>;
  /** The sound's unit vector in every similarity space. */
  similarityVectors(analysis: VariantATree): Array<{ space: string; vector: Float32Array }>;
}
