export * from '../common-exports.ts';
export { ACCEPTED_TYPES, type SoundType } from '../media/formats.ts';
export type { MonoSignal } from '../media/images.ts';
// Types of other areas that this entry point's functions take or return, so its users can name them.
export type { AnalysisContext, AnalysisHook, AnalysisHookResult } from '../media/pipeline.ts';
export type { FfprobeOutput, FfprobeStream, ProbeResult } from '../media/probe.ts';
export type { AnalysisTree } from '../similarity/analysis-tree.ts';
export { analyzeSignal, type DescriptorAnalysis } from './analyze.ts';
export {
  type AnalyzeClipOptions,
  analyzeClip,
  CLIP_FRAME_STRIDE,
  CLIP_MAX_SECONDS,
  type ClipAnalysis,
  type ClipTimings,
} from './analyze-clip.ts';
export {
  ANALYSIS_FILES,
  type AnalyzeFileOptions,
  analysisHook,
  analyzeFile,
  writeAnalysisFiles,
} from './analyze-file.ts';
export { analyzeSubset, planSubset, type SubsetPlan, UnsupportedSubsetError } from './analyze-subset.ts';
export {
  CLIP_THREAD_NICENESS,
  ClipAnalysisPool,
  ClipPoolClosedError,
  type ClipPoolOptions,
  type ClipPoolStats,
} from './clip-pool.ts';
export {
  type DescriptorLayout,
  descriptorLayout,
  type NormalizationRanges,
  normalizationRanges,
  normalizeTree,
  treeLeaves,
} from './descriptor-layout.ts';
export { defaultEssentiaBeatTracker, EssentiaBeatTracker, stopEssentiaWorker } from './essentia-client.ts';
export type { EssentiaResult } from './essentia-protocol.ts';
export {
  type AnalysisExample,
  type ExampleLayout,
  InvalidAnalysisFileError,
  parseAnalysisFile,
  readAnalysisExample,
} from './example-file.ts';
export { Float32FftNotLoadedError, loadFloat32Fft } from './fft-f32.ts';
export { type FileLoudnessOptions, fileLoudness } from './file-loudness.ts';
export { decodeFrameValues, type FramesFile, type FramesGroup, writeFramesFile } from './frames-file.ts';
export { ebuR128, type LoudnessResult } from './loudness.ts';
export type { LowLevelOptions } from './lowlevel.ts';
export { frequencyToMidi } from './pitch.ts';
export { type ScalarStats, STAT_NAMES, scalarStats, type VectorStats, vectorStats } from './statistics.ts';
export type { AnalyzeOptions, GroupTimings, TreeValue, VariantATree, VariantB } from './types.ts';
export { CORE_ANALYZER, EXTRACTOR_VERSION } from './variant-a.ts';
export { VARIANT_B_TYPES } from './variant-b-types.ts';
