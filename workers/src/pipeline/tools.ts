/**
 * The analysis core as the stages use it. `core-tools.ts` implements it on @earshot/core; keeping
 * the stages on this small interface lets them be read (and built) without the core's internals.
 */
export interface StageToolsOptions {
  signal: AbortSignal;
  /** Progress within the call, 0–100. */
  onProgress?: (percent: number) => void;
  /** What `probe` returned for this file earlier, when it is at hand (saves probing again). */
  probe?: unknown;
  /**
   * renderMedia: where to leave the decoded mono analysis signal for `analyse`;
   * analyse: where such a signal may be waiting (used when it is there and fits, else it decodes).
   */
  signalFile?: string;
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
  /** The analysis tree the similarity spaces read (variant-A layout). */
  analysis: unknown;
}

export interface MediaTools {
  /** Validates and probes an upload; throws a user-readable error for files we refuse. */
  probe(file: string, fileName: string, options: StageToolsOptions): Promise<unknown>;
  renderMedia(file: string, outDir: string, options: StageToolsOptions): Promise<RenderedMedia>;
  analyse(file: string, outDir: string, options: StageToolsOptions): Promise<AnalysisOutput>;
  /** The sound's unit vector in every similarity space. */
  similarityVectors(analysis: unknown): Array<{ space: string; vector: Float32Array }>;
}
