export * from '../common-exports.ts';
export {
  type PreviewCodec,
  type PreviewEncoding,
  previewSampleRate,
  type SourceAudio,
  transcodeArgs,
} from '../ffmpeg/args.ts';
export { decodeClipInProcess, type InProcessClip, type InProcessClipOptions } from './clip-decode/index.ts';
export type { DecodedChannels } from './clip-decode/types.ts';
export { findPcmDataChunk, type PcmDataChunk } from './container-header.ts';
export {
  ANALYSIS_SAMPLE_RATE,
  type DecodedSignal,
  type DecodeOptions,
  type DecodeSource,
  decodeMono,
} from './decode.ts';
export { checkDuration, decodeLimitSeconds } from './duration-limit.ts';
export { MediaError, type MediaErrorCode } from './errors.ts';
export {
  ACCEPTED_TYPES,
  CONTAINERS,
  type Container,
  containerOfType,
  ORIGINAL_MEDIA_TYPES,
  type SoundType,
  typeFromExtension,
} from './formats.ts';
export { type HeaderProbe, probeFileHeader, probeHeader } from './header-probe.ts';
export { IMAGE_FILES, IMAGE_SIZES, type ImageKey, type MonoSignal, renderImages } from './images.ts';
export { type AudiowaveformJson, audiowaveformPeaks, PEAKS_SAMPLES_PER_PIXEL } from './peaks.ts';
export {
  type AnalysisContext,
  type AnalysisHook,
  type AnalysisHookResult,
  PEAKS_FILE,
  type ProcessOptions,
  type ProcessResult,
  processFile,
  type Stage,
} from './pipeline.ts';
export { PREVIEW_KEYS, PREVIEWS, type PreviewKey } from './previews.ts';
export {
  checkProbedLength,
  type FfprobeOutput,
  type FfprobeStream,
  type ProbeOptions,
  type ProbeResult,
  probeFile,
} from './probe.ts';
export {
  SERVED_FILE_NAMES,
  type ServedFileKind,
  STORED_FILES,
  type StoredFileKind,
} from './stored-files.ts';
